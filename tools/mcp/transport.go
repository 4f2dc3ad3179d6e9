package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// conn is one live connection to a server. A reconnect makes a new conn;
// tools look up the current one on every call.
type conn struct {
	client *client.Client
	proc   *process        // stdio only
	http   *http.Transport // remote only; its idle connections are closed on teardown
	cancel context.CancelFunc

	lostOnce sync.Once
	lost     chan struct{} // closed when the connection is known dead
	lostErr  error
}

// markLost records why the connection died and wakes the server loop.
func (c *conn) markLost(err error) {
	c.lostOnce.Do(func() {
		if err == nil {
			err = errors.New("connection closed")
		}
		c.lostErr = err
		close(c.lost)
	})
}

// close ends the connection and everything it started.
func (c *conn) close() {
	c.cancel()
	if c.client != nil {
		_ = c.client.Close()
	}
	if c.proc != nil {
		c.proc.stop()
	}
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
}

// kind is the transport a configuration asks for.
func (cfg ServerConfig) kind() (string, error) {
	switch strings.ToLower(cfg.Type) {
	case "", "stdio":
		if cfg.Command == "" {
			if cfg.URL != "" {
				return "", errors.New(`"url" needs "type": "http" or "sse"`)
			}
			return "", errors.New(`no "command" (stdio) or "url" (remote) configured`)
		}
		return "stdio", nil
	case "sse":
		if cfg.URL == "" {
			return "", errors.New(`type "sse" needs a "url"`)
		}
		return "sse", nil
	case "http", "streamable-http", "streamablehttp":
		if cfg.URL == "" {
			return "", fmt.Errorf("type %q needs a \"url\"", cfg.Type)
		}
		return "http", nil
	default:
		return "", fmt.Errorf("unknown type %q (want stdio, sse or http)", cfg.Type)
	}
}

// dial starts the transport for s's configuration and returns an
// unstarted-handshake conn whose lifetime is bounded by ctx.
func (s *server) dial(ctx context.Context) (*conn, error) {
	kind, err := s.cfg.kind()
	if err != nil {
		return nil, err
	}
	m := s.m
	exp := &expander{lookup: m.opts.Env}
	cctx, cancel := context.WithCancel(ctx)
	c := &conn{cancel: cancel, lost: make(chan struct{})}
	opts := []client.ClientOption{
		// Pinning the last handshake-era version skips the server/discover
		// probe, which costs 5 s against servers that ignore it.
		client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION),
	}
	if kind != "sse" {
		// mcp-go's SSE client cannot answer server requests: advertising
		// roots there would leave servers waiting for a roots/list reply.
		opts = append(opts, client.WithRootsHandler(rootsHandler{m}))
	}
	switch kind {
	case "stdio":
		p, err := startProcess(exp.expand(s.cfg.Command), exp.expandAll(s.cfg.Args), exp.expandMap(s.cfg.Env), m.workDir(), s.log)
		if err != nil {
			cancel()
			return nil, err
		}
		c.proc = p
		c.client = client.NewClient(transport.NewIO(p.stdout, &quietWriter{f: p.stdin}, nil), opts...)
		go func() {
			select {
			case <-p.exited:
				c.markLost(p.exitError())
			case <-cctx.Done():
			}
		}()
	case "sse":
		c.http = newHTTPTransport(m.opts.ConnectTimeout)
		tr, err := transport.NewSSE(exp.expand(s.cfg.URL),
			transport.WithHeaders(exp.expandMap(s.cfg.Headers)),
			transport.WithHTTPClient(&http.Client{Transport: c.http}),
			transport.WithEndpointTimeout(m.opts.ConnectTimeout),
			// Calls carry their own deadline; this only must not cut them first.
			transport.WithResponseTimeout(max(m.opts.CallTimeout, m.opts.ConnectTimeout)+time.Second),
			transport.WithSSELogger(s.log))
		if err != nil {
			cancel()
			return nil, err
		}
		c.client = client.NewClient(tr, opts...)
		c.client.OnConnectionLost(func(err error) { c.markLost(fmt.Errorf("SSE stream lost: %w", err)) })
	case "http":
		c.http = newHTTPTransport(m.opts.ConnectTimeout)
		tr, err := transport.NewStreamableHTTP(exp.expand(s.cfg.URL),
			transport.WithHTTPHeaders(exp.expandMap(s.cfg.Headers)),
			// No http.Client.Timeout: it would cut long streamed responses;
			// every request carries a context deadline instead.
			transport.WithHTTPBasicClient(&http.Client{Transport: c.http}),
			// The standalone GET stream carries tools/list_changed on the
			// pinned handshake-era protocol.
			//lint:ignore SA1019 deprecated only for protocol 2026-07-28, which we do not negotiate
			transport.WithContinuousListening(),
			transport.WithHTTPLogger(s.log))
		if err != nil {
			cancel()
			return nil, err
		}
		c.client = client.NewClient(tr, opts...)
	}
	if missing := exp.missingNames(); len(missing) > 0 {
		s.log.Warn("mcp server configuration uses unset environment variables", "vars", missing)
	}
	c.client.OnNotification(func(n mcp.JSONRPCNotification) { s.onNotification(n) })
	if err := c.client.Start(cctx); err != nil {
		c.close()
		return nil, fmt.Errorf("start transport: %w", err)
	}
	return c, nil
}

// newHTTPTransport bounds connecting but not the length of a response: tool
// calls stream for as long as their context allows.
func newHTTPTransport(connect time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = min(connect, 10*time.Second)
	return t
}

// quietWriter is the stdio transport's pipe to the child. Once we have
// closed it, late writes (a reply to a server request that raced with
// Close) are dropped instead of being logged as errors by mcp-go, whose
// stdio logger cannot be replaced when it does not spawn the process.
type quietWriter struct {
	mu     sync.Mutex
	f      io.WriteCloser
	closed bool
}

func (w *quietWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return len(p), nil
	}
	return w.f.Write(p)
}

func (w *quietWriter) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	return w.f.Close()
}

// rootsHandler answers roots/list with the workspace folders.
type rootsHandler struct{ m *Manager }

func (h rootsHandler) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	uris := h.m.rootURIs()
	res := &mcp.ListRootsResult{Roots: make([]mcp.Root, 0, len(uris))}
	for _, u := range uris {
		name := u[strings.LastIndexByte(u, '/')+1:]
		res.Roots = append(res.Roots, mcp.Root{URI: u, Name: name})
	}
	return res, nil
}

// isConnError reports whether err from a request means the connection is
// gone (as opposed to the server rejecting the request).
func isConnError(err error) bool {
	var op *net.OpError
	return errors.Is(err, transport.ErrTransportClosed) ||
		errors.Is(err, transport.ErrSessionTerminated) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.As(err, &op) ||
		// mcp-go's SSE transport reports these without a wrapped cause.
		strings.Contains(err.Error(), "transport has been closed") ||
		strings.Contains(err.Error(), "endpoint not received")
}
