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
	"sync"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// Limits of the LSP base protocol framing accepted by the wire.
const (
	// maxFrameBytes bounds one message body. An editor never sends anything
	// near this; a larger Content-Length is treated as a corrupt header rather
	// than an instruction to allocate gigabytes.
	maxFrameBytes = 256 << 20
	// maxAnswerBytes bounds one answer from the editor to a request of
	// ours, as the ACP face bounds every message (10 MiB): no answer
	// agentls asks for (an approval, an applied edit, an editor tool's
	// output, which is cut at 50 KiB anyway) needs more, and one larger
	// fails its request at once (failPending) instead of being taken.
	maxAnswerBytes = 10 << 20
	// headBytes is how much of an oversized answer is read to find its id.
	headBytes = 64 << 10
	// maxHeaderLine bounds one header line ("Content-Length: 123\r\n" is 21
	// bytes), so garbage without a newline cannot grow a buffer unbounded.
	maxHeaderLine = 4096
)

// ErrBadHeader is wrapped by the error that ends serving when the input holds
// a header block the server cannot frame (no colon, a Content-Length that is
// missing, not a number, zero or too large, a line too long, or EOF inside a
// header or body). There is no way to find the next frame after that, so the
// process exits with a non-zero code instead of guessing.
var ErrBadHeader = errors.New("unreadable LSP header")

// Frames is the byte transport between the editor and jsonrpc2 (see docs/pitfalls.md
// "LSP: errors": one malformed frame kills a jsonrpc2 connection). It reads LSP frames
// itself, answers every frame whose body is not a single valid JSON-RPC
// message with an error response (id null unless the id could be read) and
// skips it, and hands only valid frames, re-framed, to jsonrpc2's header
// stream. Writes from jsonrpc2 (one Write per message) and the wire's own
// error responses share one mutex, so frames never interleave.
type Frames struct {
	in  *bufio.Reader
	log *slog.Logger

	buf     []byte // current valid frame: canonical header + body
	pending []byte // unread part of buf

	wmu sync.Mutex // serialises every frame written to out
	out io.Writer

	ended chan struct{} // closed when input ended (clean EOF or fatal)
	once  sync.Once
	err   error // why input ended; set before ended is closed
}

func NewFrames(in io.Reader, out io.Writer, log *slog.Logger) *Frames {
	return &Frames{
		in:    bufio.NewReaderSize(in, 64<<10),
		out:   out,
		log:   log,
		ended: make(chan struct{}),
	}
}

// Read implements io.Reader for jsonrpc2's header stream: it yields only
// frames that passed validation.
func (w *Frames) Read(p []byte) (int, error) {
	for len(w.pending) == 0 {
		if err := w.nextFrame(); err != nil {
			w.end(err)
			return 0, err
		}
	}
	n := copy(p, w.pending)
	w.pending = w.pending[n:]
	return n, nil
}

// Write implements io.Writer. jsonrpc2 writes each message with one call
// (header and body together). A body that is not valid UTF-8 is sanitised
// on the way out (see validUTF8Frame); callers still see len(p) written.
func (w *Frames) Write(p []byte) (int, error) {
	out := p
	if !utf8.Valid(p) {
		out = validUTF8Frame(p)
		w.log.Warn("replaced invalid UTF-8 in an outgoing message", "bytes", len(p))
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if _, err := w.out.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// validUTF8Frame returns frame (header, blank line, JSON body) with every
// invalid UTF-8 sequence of the body replaced by U+FFFD and the
// Content-Length fixed to match. JSON's structure is ASCII, so invalid
// bytes can only sit inside strings, and replacing them keeps the JSON
// valid. A frame without a header separator is sanitised whole.
func validUTF8Frame(frame []byte) []byte {
	i := bytes.Index(frame, []byte("\r\n\r\n"))
	if i < 0 {
		return bytes.ToValidUTF8(frame, []byte("\uFFFD"))
	}
	body := bytes.ToValidUTF8(frame[i+4:], []byte("\uFFFD"))
	out := make([]byte, 0, len(body)+32)
	out = append(out, "Content-Length: "...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\n\r\n"...)
	return append(out, body...)
}

// Close implements io.Closer. Closing stdin does not unblock a pending Read
// (docs/pitfalls.md "LSP: handler chain and message order"), so there is nothing useful to close: the process exits.
func (w *Frames) Close() error { return nil }

// Ended is closed when the input has ended (clean EOF or fatal).
func (w *Frames) Ended() <-chan struct{} { return w.ended }

// end records why input ended, once, and wakes Serve.
func (w *Frames) end(err error) {
	w.once.Do(func() {
		w.err = err
		close(w.ended)
	})
}

// InputErr reports why input ended: nil for a clean EOF at a frame boundary.
// Only valid after Ended is closed.
func (w *Frames) InputErr() error {
	if errors.Is(w.err, io.EOF) {
		return nil
	}
	return w.err
}

// nextFrame reads one frame. A valid one is left in w.pending; an invalid body
// is answered and leaves w.pending empty. A non-nil error ends the input.
func (w *Frames) nextFrame() error {
	n, err := w.readHeader()
	if err != nil {
		return err
	}
	w.buf = append(w.buf[:0], "Content-Length: "...)
	w.buf = strconv.AppendInt(w.buf, int64(n), 10)
	w.buf = append(w.buf, "\r\n\r\n"...)
	h := len(w.buf)
	w.buf = grow(w.buf, min(n, headBytes))
	body := w.buf[h:]
	if m, err := io.ReadFull(w.in, body); err != nil {
		return fmt.Errorf("%w: input ended inside a body, after %d of %d bytes: %w", ErrBadHeader, m, n, io.ErrUnexpectedEOF)
	}
	if n > maxAnswerBytes {
		if id, response := Head(body); response {
			if m, err := io.CopyN(io.Discard, w.in, int64(n-len(body))); err != nil {
				return fmt.Errorf("%w: input ended inside a body, after %d of %d bytes: %w", ErrBadHeader, int64(len(body))+m, n, io.ErrUnexpectedEOF)
			}
			return w.failPending(id, n)
		}
	}
	if rest := n - len(body); rest > 0 {
		w.buf = grow(w.buf, rest)
		if m, err := io.ReadFull(w.in, w.buf[h+len(body):]); err != nil {
			return fmt.Errorf("%w: input ended inside a body, after %d of %d bytes: %w", ErrBadHeader, len(body)+m, n, io.ErrUnexpectedEOF)
		}
		body = w.buf[h:]
	}
	if !utf8.Valid(body) {
		// LSP bodies are UTF-8. Invalid bytes can only be inside JSON
		// strings (anything else fails validation below), so replacing them
		// with U+FFFD keeps the message's structure, and no method name, id
		// or URI the server echoes back can carry them out again.
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		w.log.Warn("replaced invalid UTF-8 in an incoming message", "bytes", n)
		w.buf = append(w.buf[:0], "Content-Length: "...)
		w.buf = strconv.AppendInt(w.buf, int64(len(body)), 10)
		w.buf = append(w.buf, "\r\n\r\n"...)
		w.buf = append(w.buf, body...)
		body = w.buf[len(w.buf)-len(body):]
	}
	if reply := validateFrame(body); reply != nil {
		w.log.Warn("rejected malformed JSON-RPC frame", "bytes", n, "code", reply.Error.Code, "reason", reply.Error.Message)
		if err := w.writeJSON(reply); err != nil {
			return fmt.Errorf("write error response: %w", err)
		}
		return nil
	}
	w.pending = w.buf
	return nil
}

// failPending hands jsonrpc2 an error response for id in place of the
// editor's oversized answer to one of our requests: that request fails at
// once with an error saying why, and the connection goes on. Nothing goes
// to the editor: an error response sent back would carry our own request
// id, which can match one of the editor's requests. An answer whose id is
// not in its first bytes cannot be matched: it is dropped, and its request
// ends with its own bound (client.requestTimeoutSeconds or the run's).
func (w *Frames) failPending(id json.RawMessage, size int) error {
	if id == nil {
		w.log.Warn("editor's answer too large and without an id in its first bytes; dropped", "bytes", size)
		return nil
	}
	w.log.Warn("editor's answer too large; failing the request it answers", "bytes", size, "id", string(id))
	body, err := json.Marshal(newErrorReply(id, codeInternalError,
		fmt.Sprintf("the editor's answer is %d bytes, over agentls's limit of %d bytes per answer", size, maxAnswerBytes)))
	if err != nil {
		return fmt.Errorf("encode the error for an oversized answer: %w", err)
	}
	w.buf = append(w.buf[:0], "Content-Length: "...)
	w.buf = strconv.AppendInt(w.buf, int64(len(body)), 10)
	w.buf = append(w.buf, "\r\n\r\n"...)
	w.buf = append(w.buf, body...)
	w.pending = w.buf
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// readHeader reads one header block and returns its Content-Length. Blank
// lines before the first field are skipped (some clients pad between frames);
// EOF before any byte of a header is a clean io.EOF.
func (w *Frames) readHeader() (int, error) {
	length := -1
	fields := 0
	for {
		line, err := w.in.ReadSlice('\n')
		if err != nil {
			switch {
			case errors.Is(err, io.EOF) && len(line) == 0 && fields == 0:
				return 0, io.EOF
			case errors.Is(err, bufio.ErrBufferFull):
				return 0, fmt.Errorf("%w: header line longer than %d bytes", ErrBadHeader, w.in.Size())
			case errors.Is(err, io.EOF):
				return 0, fmt.Errorf("%w: input ended inside a header: %w", ErrBadHeader, io.ErrUnexpectedEOF)
			default:
				return 0, fmt.Errorf("read header: %w", err)
			}
		}
		if len(line) > maxHeaderLine {
			return 0, fmt.Errorf("%w: header line longer than %d bytes", ErrBadHeader, maxHeaderLine)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if fields == 0 {
				continue
			}
			break
		}
		fields++
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, fmt.Errorf("%w: header field %q has no colon", ErrBadHeader, truncate(line))
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type and unknown fields are ignored
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		if err != nil || n <= 0 || n > maxFrameBytes {
			return 0, fmt.Errorf("%w: bad Content-Length %q (want 1..%d)", ErrBadHeader, truncate(value), maxFrameBytes)
		}
		length = n
	}
	if length < 0 {
		return 0, fmt.Errorf("%w: header has no Content-Length", ErrBadHeader)
	}
	return length, nil
}

func truncate(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}

// validateFrame returns nil when body is one JSON-RPC 2.0 message jsonrpc2
// will accept, else the error response to send: -32700 (Parse error) when
// body is not JSON, -32600 (Invalid Request) when it is JSON but not a valid
// message (batches included: LSP has
// none, and jsonrpc2 would run their members concurrently, out of order).
func validateFrame(body []byte) *errorReply {
	if !json.Valid(body) {
		return newErrorReply(nil, codeParseError, "parse error: message body is not valid JSON")
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return newErrorReply(nil, codeInvalidRequest, "invalid request: batches are not supported")
	}
	if _, err := jsonrpc2.DecodeMessage(body); err != nil {
		// The body is JSON (checked above), so whatever jsonrpc2 objects to
		// is the shape of the message: Invalid Request, per JSON-RPC 2.0.
		return newErrorReply(requestID(body), codeInvalidRequest,
			"invalid request: not a JSON-RPC 2.0 request, notification or response (need \"jsonrpc\":\"2.0\", a string \"method\", and a number or string \"id\")")
	}
	return nil
}

// requestID returns the "id" of an invalid request when it is a usable id (a
// string or an integer), so a client waiting on it gets its answer; nil
// otherwise.
func requestID(body []byte) json.RawMessage {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &env) != nil || len(env.ID) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(env.ID, &s) == nil {
		return env.ID
	}
	var n int64
	if json.Unmarshal(env.ID, &n) == nil {
		return env.ID
	}
	return nil
}

// writeJSON frames v and writes it under the write mutex.
func (w *Frames) writeJSON(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshal: %w", err)
	}
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	_, err = w.Write(frame)
	return err
}
