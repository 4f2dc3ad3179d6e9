package acpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/rpchead"
)

// The Go SDK (acp-go-sdk v0.13.0) reads its input with a bufio.Scanner and
// drops what it cannot parse: a malformed line, a JSON array (a batch) or
// an LSP "Content-Length:" header is logged and never answered, and a line
// over 10 MiB closes the whole connection. JSON-RPC asks for an error
// reply (-32700 Parse error, -32600 Invalid Request), and a client that
// sent one bad line should not lose its session. So the input goes
// through lineFilter first: every well-formed JSON object line passes to
// the SDK unchanged; anything else is answered here and dropped, and the
// connection lives on. Both this filter and the SDK write through one
// lockedWriter (the SDK writes each message with one Write call), so
// lines never interleave.

// maxLineBytes is the largest line passed to the SDK: its scanner's limit.
const maxLineBytes = 10<<20 - 1 // the scanner must also hold the newline

// lockedWriter serialises whole-message writes to the client.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineFilter copies good lines from in to out and answers bad ones on
// reply. It returns when in ends or out is closed.
type lineFilter struct {
	in    io.Reader
	out   *io.PipeWriter
	reply io.Writer
	log   *slog.Logger
}

// rpcError is a JSON-RPC error response written by the filter.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (f *lineFilter) run() error {
	r := bufio.NewReaderSize(f.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, maxLineBytes)
		if len(line) > 0 || tooLong > 0 {
			if werr := f.handle(line, tooLong); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line (without its end); a line longer than max is
// consumed and reported by its length in tooLong, its first 64 KiB kept
// in line (for the request id).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong int, err error) {
	for {
		chunk, isPrefix, e := r.ReadLine()
		if tooLong > 0 {
			tooLong += len(chunk)
		} else {
			line = append(line, chunk...)
			if len(line) > max {
				tooLong = len(line)
				line = line[: 64<<10 : 64<<10]
			}
		}
		if e != nil {
			return line, tooLong, e
		}
		if !isPrefix {
			return line, tooLong, nil
		}
	}
}

func (f *lineFilter) handle(line []byte, tooLong int) error {
	trimmed := bytes.TrimSpace(line)
	switch {
	case tooLong > 0:
		id, response := rpchead.Of(trimmed)
		if !response {
			f.log.Warn("ACP message too large; answered and dropped", "bytes", tooLong)
			return f.answer(id, -32600, fmt.Sprintf("Invalid Request: message of %d bytes is over agentls's limit of %d bytes per message", tooLong, maxLineBytes))
		}
		if id == nil {
			// Nothing to match it to: the request it answers waits
			// for its own timeout (client.requestTimeoutSeconds).
			f.log.Warn("ACP response too large and without an id before the cut; dropped", "bytes", tooLong)
			return nil
		}
		f.log.Warn("ACP response too large; failing the request it answers", "bytes", tooLong, "id", string(id))
		return f.failPending(id, tooLong)
	case len(trimmed) == 0:
		return nil
	case bytes.HasPrefix(bytes.ToLower(trimmed), []byte("content-length:")):
		f.log.Warn("LSP framing on the ACP connection", "line", string(trimmed))
		return f.answer(nil, -32700, "Parse error: agentls acp speaks ACP (one JSON-RPC message per line, no Content-Length headers); for LSP run agentls serve")
	case !json.Valid(trimmed):
		f.log.Warn("malformed ACP message; answered and dropped", "bytes", len(trimmed))
		return f.answer(nil, -32700, "Parse error: the line is not valid JSON")
	case trimmed[0] != '{':
		f.log.Warn("ACP message is not a JSON object; answered and dropped")
		return f.answer(nil, -32600, "Invalid Request: each line must be one JSON-RPC object (batches are not supported)")
	}
	if _, err := f.out.Write(append(trimmed, '\n')); err != nil {
		return err
	}
	return nil
}

// errAnswerTooLarge marks (in the error's data) the error failPending
// hands to the SDK in place of an oversized answer, so the caller can
// tell it from an error the client sent.
const errAnswerTooLarge = "answerTooLarge"

// failPending hands the SDK an error response for id in place of the
// client's oversized answer to one of our requests: that request fails
// at once, with an error saying why, instead of waiting for its timeout.
// Nothing goes to the client: an error response sent back would carry
// our own request id, which can match one of the client's requests.
func (f *lineFilter) failPending(id json.RawMessage, size int) error {
	e := struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      json.RawMessage  `json:"id"`
		Error   acp.RequestError `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	e.Error = acp.RequestError{Code: -32603,
		Message: fmt.Sprintf("the editor's answer is %d bytes, over agentls's limit of %d bytes per message", size, maxLineBytes),
		Data:    map[string]any{"agentls": errAnswerTooLarge, "bytes": size}}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode the error for an oversized answer: %w", err)
	}
	_, err = f.out.Write(append(b, '\n'))
	return err
}

// answerTooLarge reports whether err is failPending's error, and the size
// of the answer it replaced.
func answerTooLarge(err error) (int, bool) {
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return 0, false
	}
	d, ok := re.Data.(map[string]any)
	if !ok || d["agentls"] != errAnswerTooLarge {
		return 0, false
	}
	n, _ := d["bytes"].(float64)
	return int(n), true
}

// answer writes an error response; id nil is JSON null.
func (f *lineFilter) answer(id json.RawMessage, code int, msg string) error {
	e := rpcError{JSONRPC: "2.0", ID: id}
	if e.ID == nil {
		e.ID = json.RawMessage("null")
	}
	e.Error.Code, e.Error.Message = code, msg
	b, _ := json.Marshal(e) // plain types: always marshals
	_, err := f.reply.Write(append(b, '\n'))
	return err
}
