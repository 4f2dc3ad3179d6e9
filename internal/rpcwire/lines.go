package rpcwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// Lines guards a connection of one JSON-RPC message per line (ACP). The
// Go SDK (acp-go-sdk v0.13.0) reads its input with a bufio.Scanner and
// drops what it cannot parse: a malformed line, a JSON array (a batch) or
// an LSP "Content-Length:" header is logged and never answered, and a line
// over 10 MiB closes the whole connection. JSON-RPC asks for an error
// reply (-32700 Parse error, -32600 Invalid Request), and a client that
// sent one bad line should not lose its session. So the input goes
// through Lines first: every well-formed JSON object line passes to
// the SDK unchanged; anything else is answered here and dropped, and the
// connection lives on. Both this filter and the SDK write through one
// LockedWriter (the SDK writes each message with one Write call), so
// lines never interleave.

// MaxLineBytes is the largest line passed on: the ACP SDK scanner's limit.
const MaxLineBytes = 10<<20 - 1 // the scanner must also hold the newline

// LockedWriter serialises whole-message writes to the client.
type LockedWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}

// Lines copies good lines from In to Out and answers bad ones on Reply.
type Lines struct {
	In    io.Reader
	Out   io.Writer
	Reply io.Writer
	Log   *slog.Logger
}

// Run filters until In ends (nil at EOF) or a write fails.
func (f *Lines) Run() error {
	r := bufio.NewReaderSize(f.In, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxLineBytes)
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

func (f *Lines) handle(line []byte, tooLong int) error {
	trimmed := bytes.TrimSpace(line)
	switch {
	case tooLong > 0:
		id, response := Head(trimmed)
		if !response {
			f.Log.Warn("ACP message too large; answered and dropped", "bytes", tooLong)
			return f.answer(id, codeInvalidRequest, fmt.Sprintf("Invalid Request: message of %d bytes is over agentls's limit of %d bytes per message", tooLong, MaxLineBytes))
		}
		if id == nil {
			// Nothing to match it to: the request it answers waits
			// for its own timeout (client.requestTimeoutSeconds).
			f.Log.Warn("ACP response too large and without an id before the cut; dropped", "bytes", tooLong)
			return nil
		}
		f.Log.Warn("ACP response too large; failing the request it answers", "bytes", tooLong, "id", string(id))
		return f.failPending(id, tooLong)
	case len(trimmed) == 0:
		return nil
	case bytes.HasPrefix(bytes.ToLower(trimmed), []byte("content-length:")):
		f.Log.Warn("LSP framing on the ACP connection", "line", string(trimmed))
		return f.answer(nil, codeParseError, "Parse error: agentls acp speaks ACP (one JSON-RPC message per line, no Content-Length headers); for LSP run agentls serve")
	case !json.Valid(trimmed):
		f.Log.Warn("malformed ACP message; answered and dropped", "bytes", len(trimmed))
		return f.answer(nil, codeParseError, "Parse error: the line is not valid JSON")
	case trimmed[0] != '{':
		f.Log.Warn("ACP message is not a JSON object; answered and dropped")
		return f.answer(nil, codeInvalidRequest, "Invalid Request: each line must be one JSON-RPC object (batches are not supported)")
	}
	if _, err := f.Out.Write(append(trimmed, '\n')); err != nil {
		return err
	}
	return nil
}

// AnswerTooLarge marks (as data.agentls) the error failPending hands on
// in place of an oversized answer, so the caller can tell it from an
// error the client sent; data.bytes is the answer's size.
const AnswerTooLarge = "answerTooLarge"

// failPending hands the SDK an error response for id in place of the
// client's oversized answer to one of our requests: that request fails
// at once, with an error saying why, instead of waiting for its timeout.
// Nothing goes to the client: an error response sent back would carry
// our own request id, which can match one of the client's requests.
func (f *Lines) failPending(id json.RawMessage, size int) error {
	e := newErrorReply(id, codeInternalError, fmt.Sprintf("the editor's answer is %d bytes, over agentls's limit of %d bytes per message", size, MaxLineBytes))
	e.Error.Data = map[string]any{"agentls": AnswerTooLarge, "bytes": size}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode the error for an oversized answer: %w", err)
	}
	_, err = f.Out.Write(append(b, '\n'))
	return err
}

// answer writes an error response; id nil is JSON null.
func (f *Lines) answer(id json.RawMessage, code int, msg string) error {
	b, _ := json.Marshal(newErrorReply(id, code, msg)) // plain types: always marshals
	_, err := f.Reply.Write(append(b, '\n'))
	return err
}
