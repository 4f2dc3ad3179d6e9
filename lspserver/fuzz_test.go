package lspserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
)

// Fuzz targets of the wire, the param decoders and text synchronisation.
// Their seed corpora are in testdata/fuzz/<target>; `make fuzz` runs each
// for a bounded time (CI does).

// FuzzParamDecoders: every method's param decoder takes any JSON (or
// not-JSON) without panicking, and its error, if any, is an InvalidParams
// JSON-RPC error; didChange's strict decoder never accepts a range outside
// LSP's bounds.
func FuzzParamDecoders(f *testing.F) {
	s := New(Options{NoWatcher: true})
	methods := slices.Sorted(func(yield func(string) bool) {
		for m := range s.core.Routes() {
			if !yield(m) {
				return
			}
		}
	})
	f.Fuzz(func(t *testing.T, params []byte) {
		for _, m := range methods {
			err := s.core.Routes()[m].Decode(jsonrpc2.RawMessage(params))
			var coded *jsonrpc2.Error
			if err != nil && !(asCoded(err, &coded) && coded.Code == jsonrpc2.InvalidParams) {
				t.Fatalf("%s: decode error %v is not InvalidParams", m, err)
			}
		}
		var p docs.DidChangeParams
		if core.DecodeParams(jsonrpc2.RawMessage(params), &p) != nil {
			return
		}
		changes, err := docs.ParseContentChanges(p.ContentChanges)
		if err != nil {
			return
		}
		for _, c := range changes {
			if r := c.Range; r != nil {
				if r.Start.Line > docs.MaxPosition || r.Start.Character > docs.MaxPosition || r.End.Line > docs.MaxPosition || r.End.Character > docs.MaxPosition {
					t.Fatalf("accepted an out-of-bounds range %+v", *r)
				}
				if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Character < r.Start.Character {
					t.Fatalf("accepted a range whose start is after its end %+v", *r)
				}
			}
		}
	})
}

func asCoded(err error, target **jsonrpc2.Error) bool {
	e, ok := err.(*jsonrpc2.Error)
	if ok {
		*target = e
	}
	return ok
}

// FuzzTextSync: a didOpen and a sequence of didChange notifications, some
// malformed (negative, fractional, huge or missing positions, start after
// end), go through the real server; agentls/document then must hold
// exactly the text an independent reference computes: each well-formed
// notification applied with text.ApplyChanges, each malformed one ignored.
func FuzzTextSync(f *testing.F) {
	f.Fuzz(func(t *testing.T, initial string, ops []byte) {
		if !utf8.ValidString(initial) {
			initial = strings.ToValidUTF8(initial, "?")
		}
		const uri = "untitled:fuzz"
		var in bytes.Buffer
		frame := func(v string) { fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(v), v) }
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
		frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"x","version":1,"text":` + q(initial) + `}}}`)
		ref := initial
		version := 1
		for len(ops) >= 6 {
			op := ops[:6]
			ops = ops[6:]
			pieces := []string{"", "a", "\n", "😀", "\r\n", "é", "xyz\n"}
			newText := pieces[int(op[5])%len(pieces)]
			var change string
			if op[0]%5 == 0 {
				change = `{"text":` + q(newText) + `}`
			} else {
				change = `{"range":{"start":` + fuzzPos(op[1], op[2]) + `,"end":` + fuzzPos(op[3], op[4]) + `},"text":` + q(newText) + `}`
			}
			version++
			frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":` + strconv.Itoa(version) + `},"contentChanges":[` + change + `]}}`)
			if c, err := docs.ParseContentChange([]byte(change)); err == nil {
				next, err := text.ApplyChanges(ref, []text.Change{c}, text.UTF16)
				if err != nil {
					t.Fatalf("reference refused %s: %v", change, err)
				}
				ref = next
			}
		}
		frame(`{"jsonrpc":"2.0","id":2,"method":"agentls/document","params":{"uri":"` + uri + `"}}`)
		// Requests run concurrently: the answer is read before shutdown is
		// sent, or exit could overtake it.
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		s := New(Options{NoWatcher: true, Logger: slog.New(slog.DiscardHandler)})
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Serve(t.Context(), inR, outW)
			_ = outW.Close()
		}()
		go func() { _, _ = inW.Write(in.Bytes()) }()
		r := bufio.NewReader(outR)
		var got *string
		for got == nil {
			n, err := readContentLength(r)
			if err != nil {
				t.Fatalf("no answer to agentls/document: %v", err)
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				t.Fatal(err)
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result *struct {
					Text string `json:"text"`
				} `json:"result"`
			}
			if json.Unmarshal(body, &m) != nil || string(m.ID) != "2" {
				continue
			}
			if m.Result == nil {
				t.Fatalf("agentls/document failed: %s", body)
			}
			got = &m.Result.Text
		}
		var end bytes.Buffer
		for _, v := range []string{`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`} {
			fmt.Fprintf(&end, "Content-Length: %d\r\n\r\n%s", len(v), v)
		}
		go func() { _, _ = inW.Write(end.Bytes()); _ = inW.Close() }()
		_, _ = io.Copy(io.Discard, r)
		<-done
		if *got != ref {
			t.Fatalf("server text %q, reference %q", *got, ref)
		}
	})
}

// fuzzPos is a JSON position from two fuzz bytes: mostly small valid
// values, sometimes a malformed or out-of-bounds one.
func fuzzPos(a, b byte) string {
	val := func(x byte) string {
		bad := []string{"-1", "1.5", `"1"`, "null", "2147483647", "2147483648", "4294967296", "1e2"}
		if x >= 240 {
			return bad[int(x-240)%len(bad)]
		}
		return strconv.Itoa(int(x % 12))
	}
	switch {
	case a == 255 && b == 255:
		return `{"line":0}`
	case a == 254 && b == 254:
		return `null`
	}
	return `{"line":` + val(a) + `,"character":` + val(b) + `}`
}

// readContentLength reads one header block of the server's output and
// returns its Content-Length.
func readContentLength(r *bufio.Reader) (int, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if n < 0 {
				return 0, fmt.Errorf("header block without Content-Length")
			}
			return n, nil
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return 0, fmt.Errorf("header %q: %w", line, err)
			}
		}
	}
}

// FuzzServe: any input ends the session without a panic or a hang: Serve
// returns once the input is exhausted.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		"",
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 58\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		"Content-Length: 31\r\n\r\n" + `{"jsonrpc":"2.0","method":"exit"}`,
		"Content-Length: 4\r\n\r\nnull",
		"Content-Length: x\r\n\r\n",
		"Content-Length: 100\r\n\r\n{",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(Options{NoWatcher: true})
		s.Serve(context.Background(), bytes.NewReader(data), io.Discard)
	})
}
