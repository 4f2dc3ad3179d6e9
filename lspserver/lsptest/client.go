// Package lsptest is a test LSP client that drives a real agentls server over
// pipes, in process (NewInProcess) or as the built binary (StartBinary).
// It speaks raw JSON-RPC itself, so tests can send malformed frames
// (WriteRaw, WriteFrame) and see every byte the server answers.
//
// Server→client traffic is awaitable without sleeps: every notification and
// request the server sends is recorded, and Await returns the first one not
// yet awaited that matches. Server→client requests are answered by handlers
// (Handle) with scripted results; sensible defaults answer the common ones.
package lsptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"
)

// Client is one editor-side connection to a server.
type Client struct {
	in  *bufio.Reader  // server → client
	out io.WriteCloser // client → server
	wmu sync.Mutex

	nextID atomic.Int64

	mu       sync.Mutex
	pending  map[string]chan Message // our calls by id
	received []Message               // everything the server sent, in order
	awaited  []bool                  // parallel to received: returned by Await or answered a call
	stray    []Message               // responses that answered none of our pending calls
	changed  chan struct{}           // closed and replaced on every new message
	handlers map[string]Handler
	readErr  error
	done     chan struct{} // closed when the read loop ended
	hwg      sync.WaitGroup

	exitCode func(context.Context) (int, error) // set by the transport

	// lean: keep nothing (Lean).
	lean atomic.Bool
}

// Lean stops the client keeping what the server sends (Messages, Await
// and Stray see nothing from then on; calls are still answered), for
// benchmarks: a test client that copies and keeps every message pays, per
// byte of the answer, costs no editor pays, and the timings would be the
// client's rather than the server's and the wire's.
func (c *Client) Lean() { c.lean.Store(true) }

// Handler answers a server→client request: return a result (marshalled with
// protocol.Marshal; nil gives null) or an *Error.
type Handler func(req Message) (result any, err *Error)

// New returns a Client reading the server's output from r and writing its
// input to w. Transports (NewInProcess, StartBinary) call it; use it
// directly for a custom transport.
func New(r io.Reader, w io.WriteCloser) *Client {
	c := &Client{
		in:       bufio.NewReaderSize(r, 64<<10),
		out:      w,
		pending:  make(map[string]chan Message),
		changed:  make(chan struct{}),
		handlers: defaultHandlers(),
		done:     make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// Handle sets the handler for server→client requests of method, replacing
// the default. Handlers run on their own goroutine and may block (e.g. to
// hold an applyEdit until the test is ready).
func (c *Client) Handle(method string, h Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[method] = h
}

// Call sends a request and decodes the result into result (may be nil). An
// error response is returned as *Error. If ctx ends first, $/cancelRequest
// is sent and ctx's error returned.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	resp, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return resp.Error
	}
	if result != nil {
		return resp.DecodeResult(result)
	}
	return nil
}

// CallRaw sends a request and returns the response message as received.
func (c *Client) CallRaw(ctx context.Context, method string, params any) (Message, error) {
	id := c.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	ch := make(chan Message, 1)
	c.mu.Lock()
	c.pending[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method}, params); err != nil {
		return Message{}, fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		_ = c.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id})
		return Message{}, fmt.Errorf("%s: %w", method, ctx.Err())
	case <-c.done:
		return Message{}, fmt.Errorf("%s: server output ended before the response: %w", method, c.err())
	}
}

// Notify sends a notification.
func (c *Client) Notify(_ context.Context, method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method}, params)
}

// send writes envelope plus params (marshalled with protocol.Marshal, so
// LSP union values encode correctly; a nil params is left out).
func (c *Client) send(envelope map[string]any, params any) error {
	if raw, ok := params.(json.RawMessage); ok && c.lean.Load() {
		// As an editor writes it: the params as they are, not compacted
		// again by encoding/json.
		body := append([]byte(`{"jsonrpc":"2.0",`), `"method":`...)
		m, _ := json.Marshal(envelope["method"])
		body = append(body, m...)
		if id, ok := envelope["id"].(int64); ok {
			body = strconv.AppendInt(append(body, `,"id":`...), id, 10)
		}
		body = append(append(append(body, `,"params":`...), raw...), '}')
		return c.WriteFrame(body)
	}
	if params != nil {
		b, err := marshal(params)
		if err != nil {
			return err
		}
		envelope["params"] = json.RawMessage(b)
	}
	body, err := json.Marshal(envelope)
	if err != nil {
		return fmt.Errorf("marshal message: %w", err)
	}
	return c.WriteFrame(body)
}

func marshal(v any) ([]byte, error) {
	switch x := v.(type) {
	case json.RawMessage:
		return x, nil
	case []byte:
		return x, nil
	}
	b, err := protocol.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal params: %w", err)
	}
	return b, nil
}

// WriteFrame writes body with a correct Content-Length header, whatever
// body holds (it need not be JSON).
func (c *Client) WriteFrame(body []byte) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	return c.WriteRaw(b.Bytes())
}

// WriteRaw writes bytes to the server's input verbatim (bad headers, split
// frames...).
func (c *Client) WriteRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(b)
	return err
}

// CloseInput closes the server's input (the editor going away).
func (c *Client) CloseInput() error { return c.out.Close() }

// waitHandlers waits for running request handlers (transports call it when
// tearing down, after the server's output ended).
func (c *Client) waitHandlers() { c.hwg.Wait() }

// Wait waits for the server to exit and returns its exit code.
func (c *Client) Wait(ctx context.Context) (int, error) {
	if c.exitCode == nil {
		return 0, errors.New("lsptest: this transport has no exit code")
	}
	return c.exitCode(ctx)
}

// Done is closed when the server's output ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Received returns every message the server sent so far, in order.
func (c *Client) Received() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.received...)
}

// Await returns the first message from the server not returned by an
// earlier Await (nor answering one of our calls) whose method is method
// ("" matches any, including responses to raw frames) and for which pred
// (nil matches all) is true. It waits for one to arrive, until ctx ends or
// the server's output ends.
func (c *Client) Await(ctx context.Context, method string, pred func(Message) bool) (Message, error) {
	for {
		c.mu.Lock()
		for i, m := range c.received {
			if c.awaited[i] || (method != "" && m.Method != method) || (pred != nil && !pred(m)) {
				continue
			}
			c.awaited[i] = true
			c.mu.Unlock()
			return m, nil
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("await %q: %w", method, ctx.Err())
		case <-c.done:
			// One last scan: the final messages may have arrived with EOF.
			if m, ok := c.scanOnce(method, pred); ok {
				return m, nil
			}
			return Message{}, fmt.Errorf("await %q: server output ended: %w", method, c.err())
		}
	}
}

func (c *Client) scanOnce(method string, pred func(Message) bool) (Message, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range c.received {
		if !c.awaited[i] && (method == "" || m.Method == method) && (pred == nil || pred(m)) {
			c.awaited[i] = true
			return m, true
		}
	}
	return Message{}, false
}

func (c *Client) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr == nil {
		return io.EOF
	}
	return c.readErr
}

// StrayResponses are the responses the server sent that answered none of
// the client's pending calls (a call given up on by its context counts
// too): a server must not answer what nobody asked, and a response
// carrying one of the server's own request ids shows up here.
func (c *Client) StrayResponses() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.stray...)
}

// readLoop records every message, routes responses to calls and runs
// handlers for requests.
func (c *Client) readLoop() {
	defer close(c.done)
	for {
		body, err := readFrame(c.in)
		if err != nil {
			c.mu.Lock()
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			c.mu.Unlock()
			return
		}
		var m Message
		if err := json.Unmarshal(body, &m); err != nil {
			m = Message{Error: &Error{Code: CodeParseError, Message: "lsptest: server sent invalid JSON: " + err.Error()}}
		}
		if c.lean.Load() && m.IsResponse() {
			c.mu.Lock()
			if ch, ok := c.pending[string(m.ID)]; ok {
				ch <- m
				delete(c.pending, string(m.ID))
			}
			c.mu.Unlock()
			continue
		}
		m.Raw = append(json.RawMessage(nil), body...)
		c.record(m)
	}
}

func (c *Client) record(m Message) {
	c.mu.Lock()
	answered := false
	if m.IsResponse() {
		if ch, ok := c.pending[string(m.ID)]; ok {
			ch <- m
			delete(c.pending, string(m.ID))
			answered = true
		}
	}
	if m.IsResponse() && !answered {
		c.stray = append(c.stray, m)
	}
	c.received = append(c.received, m)
	c.awaited = append(c.awaited, answered)
	close(c.changed)
	c.changed = make(chan struct{})
	h := c.handlers[m.Method]
	c.mu.Unlock()

	if m.IsRequest() {
		if h == nil {
			h = func(Message) (any, *Error) {
				return nil, &Error{Code: CodeMethodNotFound, Message: "lsptest: no handler for " + m.Method}
			}
		}
		c.hwg.Add(1)
		go func() {
			defer c.hwg.Done()
			c.reply(m, h)
		}()
	}
}

func (c *Client) reply(m Message, h Handler) {
	result, rerr := h(m)
	env := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rerr != nil {
		env["error"] = rerr
		_ = c.send(env, nil)
		return
	}
	b := []byte("null")
	if result != nil {
		var err error
		if b, err = marshal(result); err != nil {
			env["error"] = &Error{Code: CodeInternalError, Message: err.Error()}
			_ = c.send(env, nil)
			return
		}
	}
	env["result"] = json.RawMessage(b)
	_ = c.send(env, nil)
}

// readFrame reads one LSP frame strictly: the server must never send a bad one.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && line == "" && length < 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("lsptest: read header: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("lsptest: server sent header line without colon: %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("lsptest: server sent bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("lsptest: server sent a header without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("lsptest: read body: %w", err)
	}
	return body, nil
}
