package rpcwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"unicode/utf8"
)

// Fuzz target of the wire. Its seed corpus is in
// testdata/fuzz/FuzzWireFrames; `make fuzz` runs it for a bounded time
// (CI does).

// FuzzWireFrames: whatever bytes arrive, the frame reader passes on only
// well-formed frames (a Content-Length that matches the body, a body that
// is one JSON-RPC message and valid UTF-8) and every error response it
// writes itself is a well-formed frame of valid UTF-8 JSON.
func FuzzWireFrames(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		w := NewFrames(bytes.NewReader(data), &out, slog.New(slog.DiscardHandler))
		passed, _ := io.ReadAll(w)
		for _, fr := range readFrames(t, passed) {
			if !utf8.Valid(fr) {
				t.Fatalf("passed on a body that is not UTF-8: %q", fr)
			}
			if reply := validateFrame(fr); reply != nil {
				t.Fatalf("passed on an invalid frame %q: %s", fr, reply.Error.Message)
			}
		}
		for _, fr := range readFrames(t, out.Bytes()) {
			if !utf8.Valid(fr) || !json.Valid(fr) {
				t.Fatalf("wrote an invalid error response %q", fr)
			}
		}
	})
}

// readFrames splits a stream the wire produced into bodies, failing on
// any framing error.
func readFrames(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	r := bufio.NewReader(bytes.NewReader(b))
	for {
		w := &Frames{in: r}
		n, err := w.readHeader()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("the wire produced a bad header: %v in %q", err, b)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatalf("the wire produced a short body: %v in %q", err, b)
		}
		out = append(out, body)
	}
}
