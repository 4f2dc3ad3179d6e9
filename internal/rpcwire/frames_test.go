package rpcwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/testwait"
)

func TestReadHeader(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    int
		wantErr error
	}{
		{in: "Content-Length: 12\r\n\r\n", want: 12},
		{in: "content-length:7\n\n", want: 7},
		{in: "CONTENT-LENGTH:   3  \r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\nX-Other: y\r\n\r\n", want: 3},
		{in: "\r\n\r\nContent-Length: 5\r\n\r\n", want: 5}, // padding before a frame
		{in: "", wantErr: io.EOF},
		{in: "Content-Length: 5\r\n", wantErr: ErrBadHeader},
		{in: "Content-Length: 5", wantErr: ErrBadHeader},
		{in: "Content-Length 5\r\n\r\n", wantErr: ErrBadHeader},
		{in: "Content-Length: 0\r\n\r\n", wantErr: ErrBadHeader},
		{in: "Content-Length: -1\r\n\r\n", wantErr: ErrBadHeader},
		{in: "Content-Length: 0x10\r\n\r\n", wantErr: ErrBadHeader},
		{in: "Content-Length: 268435457\r\n\r\n", wantErr: ErrBadHeader},
		{in: "Content-Type: x\r\n\r\n", wantErr: ErrBadHeader},
		{in: "X: " + strings.Repeat("a", maxHeaderLine) + "\r\n\r\n", wantErr: ErrBadHeader},
	} {
		w := NewFrames(strings.NewReader(tc.in), io.Discard, slog.New(slog.DiscardHandler))
		got, err := w.readHeader()
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%q: err %v, want %v", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestValidateFrame(t *testing.T) {
	for _, tc := range []struct {
		body string
		code int // 0: valid
		id   string
	}{
		{body: `{"jsonrpc":"2.0","id":1,"method":"x"}`},
		{body: `{"jsonrpc":"2.0","id":"a","method":"x","params":{"k":[1,2]}}`},
		{body: `{"jsonrpc":"2.0","method":"x"}`},
		{body: ` {"jsonrpc":"2.0","id":3,"result":null} `},
		{body: `{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m"}}`},
		{body: `{"jsonrpc":"2.0","id":1,"method":"x"`, code: -32700, id: "null"},
		{body: `{"jsonrpc":"2.0","id":1,"method":"x"} {}`, code: -32700, id: "null"},
		{body: `nope`, code: -32700, id: "null"},
		{body: `{"jsonrpc":"2.0","id":4,"method":"x","result":1}`, code: -32600, id: "4"},
		{body: `{"jsonrpc":"2.0","id":"s","method":7}`, code: -32600, id: `"s"`},
		{body: `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, code: -32600, id: "null"},
		{body: `{"jsonrpc":"2.0","id":true,"method":"x"}`, code: -32600, id: "null"},
		{body: `[{"jsonrpc":"2.0","method":"x"}]`, code: -32600, id: "null"},
		{body: `42`, code: -32600, id: "null"},
	} {
		r := validateFrame([]byte(tc.body))
		switch {
		case tc.code == 0 && r != nil:
			t.Errorf("%s: rejected with %+v", tc.body, r)
		case tc.code != 0 && r == nil:
			t.Errorf("%s: accepted, want %d", tc.body, tc.code)
		case tc.code != 0 && (int(r.Error.Code) != tc.code || string(r.ID) != tc.id):
			t.Errorf("%s: got %d id %s, want %d id %s", tc.body, r.Error.Code, r.ID, tc.code, tc.id)
		}
	}
}

// TestWireReframes: what the wire passes on to jsonrpc2 is exactly the valid
// frames, re-framed canonically, with invalid ones answered on the output.
func TestWireReframes(t *testing.T) {
	in := "content-length: 30\n\n" + `{"jsonrpc":"2.0","method":"a"}` +
		"Content-Length: 3\r\n\r\nbad" +
		"Content-Length: 30\r\n\r\n" + `{"jsonrpc":"2.0","method":"b"}`
	var out bytes.Buffer
	w := NewFrames(strings.NewReader(in), &out, slog.New(slog.DiscardHandler))
	got, err := io.ReadAll(w)
	if err != nil {
		t.Fatal(err)
	}
	want := "Content-Length: 30\r\n\r\n" + `{"jsonrpc":"2.0","method":"a"}` + "Content-Length: 30\r\n\r\n" + `{"jsonrpc":"2.0","method":"b"}`
	if string(got) != want {
		t.Errorf("passed on %q\nwant %q", got, want)
	}
	r := bufio.NewReader(&out)
	if line, _ := r.ReadString('\n'); !strings.HasPrefix(line, "Content-Length: ") {
		t.Fatalf("bad error frame header %q", line)
	}
	if rest, _ := io.ReadAll(r); !bytes.Contains(rest, []byte(`"id":null,"error":{"code":-32700`)) {
		t.Errorf("error response = %q", rest)
	}
	testwait.Recv(t, w.Ended(), "w.Ended()")
	if w.InputErr() != nil {
		t.Errorf("clean EOF reported as %v", w.InputErr())
	}
}

// TestWireSanitisesOutput: a message whose body is not valid UTF-8 leaves
// the wire as valid UTF-8 with a Content-Length that matches the new body.
func TestWireSanitisesOutput(t *testing.T) {
	var out bytes.Buffer
	w := NewFrames(strings.NewReader(""), &out, slog.New(slog.DiscardHandler))
	body := "{\"jsonrpc\":\"2.0\",\"method\":\"m\xff\",\"params\":\"a\xc3\"}"
	frame := "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if n, err := w.Write([]byte(frame)); err != nil || n != len(frame) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(frame))
	}
	r := bufio.NewReader(&out)
	n, err := w2len(r)
	if err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	if n != len(rest) || !utf8.Valid(rest) || !json.Valid(rest) {
		t.Errorf("frame: Content-Length %d, body %d bytes %q", n, len(rest), rest)
	}
}

// w2len reads a header block and returns its Content-Length.
func w2len(r *bufio.Reader) (int, error) {
	w := &Frames{in: r}
	return w.readHeader()
}

// An editor's answer over maxAnswerBytes fails only the request it
// answers: jsonrpc2 gets an error response for that id saying why, the
// editor gets nothing (a response of ours would carry our own request id),
// and the frames after it pass as before. An oversized request is not an
// answer and passes whole; an oversized answer without an id in its first
// bytes is dropped.
func TestWireFailsOversizedAnswer(t *testing.T) {
	frame := func(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body }
	big := strings.Repeat("x", maxAnswerBytes)
	bigRequest := `{"jsonrpc":"2.0","id":9,"method":"workspace/executeCommand","params":{"arguments":["` + big + `"]}}`
	answer5 := `{"jsonrpc":"2.0","id":5,"result":{"content":"` + big + `"}}`
	in := frame(answer5) +
		frame(`{"jsonrpc":"2.0","result":{"content":"`+big+`"},"id":6}`) +
		frame(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`) +
		frame(bigRequest)
	var out bytes.Buffer
	w := NewFrames(strings.NewReader(in), &out, slog.New(slog.DiscardHandler))
	r := bufio.NewReader(w)
	var bodies []string
	for {
		n, err := w2len(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(b))
	}
	if out.Len() != 0 {
		t.Fatalf("the wire answered the editor: %.300s", out.String())
	}
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"the editor's answer is %d bytes, over agentls's limit of %d bytes per answer"}}`,
		len(answer5), maxAnswerBytes)
	if len(bodies) != 3 || bodies[0] != want || bodies[1] != `{"jsonrpc":"2.0","id":1,"method":"shutdown"}` || bodies[2] != bigRequest {
		for i, b := range bodies {
			t.Logf("body %d: %.200s", i, b)
		}
		t.Fatalf("jsonrpc2 got %d messages, want the error for id 5, shutdown and the big request", len(bodies))
	}
}
