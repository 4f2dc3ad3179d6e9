package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

// lostWith reports whether the connection was lost for reason why.
func (c *conn) lostWith(why error) bool {
	select {
	case <-c.lost:
		return errors.Is(c.lostErr, why)
	default:
		return false
	}
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
		if cfg.OAuth != nil {
			if err := cfg.OAuth.Validate(); err != nil {
				return "", err
			}
		}
		return "sse", nil
	case "http", "streamable-http", "streamablehttp":
		if cfg.URL == "" {
			return "", fmt.Errorf("type %q needs a \"url\"", cfg.Type)
		}
		if cfg.OAuth != nil {
			if err := cfg.OAuth.Validate(); err != nil {
				return "", err
			}
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
		// roots or elicitation there would leave servers waiting for a reply.
		// These handlers only make mcp-go advertise the capabilities;
		// serverRequests answers the requests.
		opts = append(opts, client.WithRootsHandler(rootsHandler{m}), client.WithElicitationHandler(elicitHandler{s}))
	}
	// mcp-go logs at ERROR on conditions we handle (a closed stream, a
	// retry); its logs go to ours at debug level.
	quiet := slog.New(debugOnly{s.log.Handler()})
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
			transport.WithHTTPClient(&http.Client{Transport: s.oauth(c.http, exp.expand(s.cfg.URL))}),
			transport.WithEndpointTimeout(m.opts.ConnectTimeout),
			// Calls carry their own deadline; this only must not cut them first.
			transport.WithResponseTimeout(max(m.opts.CallTimeout, m.opts.ConnectTimeout)+time.Second),
			transport.WithSSELogger(quiet))
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
			transport.WithHTTPBasicClient(&http.Client{Transport: &sessionWatch{base: s.oauth(c.http, exp.expand(s.cfg.URL)), c: c, cctx: cctx}}),
			// The standalone GET stream carries tools/list_changed on the
			// pinned handshake-era protocol.
			//lint:ignore SA1019 deprecated only for protocol 2026-07-28, which we do not negotiate
			transport.WithContinuousListening(),
			transport.WithHTTPLogger(quiet))
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
	// Replace mcp-go's dispatcher of server requests (set by Start), which
	// answers unknown methods with an internal error, by ours.
	if bidi, ok := c.client.GetTransport().(transport.BidirectionalInterface); ok && kind != "sse" {
		bidi.SetRequestHandler(s.serverRequest)
	}
	return c, nil
}

// oauth wraps a remote server's HTTP transport with OAuth (oauth.go).
func (s *server) oauth(base http.RoundTripper, serverURL string) http.RoundTripper {
	var cfg OAuthConfig
	if s.cfg.OAuth != nil {
		cfg = *s.cfg.OAuth
	} else {
		for k := range s.cfg.Headers {
			if strings.EqualFold(k, "Authorization") {
				return base // the user authorizes with a header of their own
			}
		}
	}
	s.m.mu.Lock()
	lifetime := s.m.ctx
	s.m.mu.Unlock()
	return &oauthTransport{base: base, server: s.name, serverURL: serverURL, cfg: cfg, opts: &s.m.opts.OAuth, env: s.m.opts.Env, lifetime: lifetime}
}

// errSessionEnded is why a streamable HTTP connection is renewed when the
// server answers 404 to our session: it has forgotten it (it restarted, or
// the session expired).
var errSessionEnded = errors.New("the server ended the session (HTTP 404; it may have restarted)")

// sessionWatch sees every HTTP exchange of a streamable HTTP connection.
// mcp-go, on a 404 to the session, only refuses further requests until the
// caller initializes again, and retries a listening stream whose server is
// gone every second: both end the connection here, so the server loop
// starts a new session (and lists the tools again) or reports the server
// lost.
type sessionWatch struct {
	base http.RoundTripper
	c    *conn
	cctx context.Context // the connection's lifetime
}

func (w *sessionWatch) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(r)
	if w.cctx.Err() != nil || r.Method == http.MethodDelete {
		return resp, err
	}
	switch {
	case err != nil && r.Method == http.MethodGet && r.Context().Err() == nil:
		// The listening stream cannot reach the server.
		w.c.markLost(fmt.Errorf("the server stopped answering: %w", err))
	case err == nil && sessionRejected(resp) && r.Header.Get(transport.HeaderKeySessionID) != "":
		if r.Method == http.MethodPost {
			w.c.markLost(errSessionEnded)
			break
		}
		// A refusal of the listening stream may also mean the server
		// offers none: a ping on the session tells (its refusal lands
		// above).
		go func() {
			ctx, cancel := context.WithTimeout(w.cctx, 10*time.Second)
			defer cancel()
			//lint:ignore SA1019 deprecated only for protocol 2026-07-28, which we do not negotiate
			_ = w.c.client.Ping(ctx)
		}()
	}
	return resp, err
}

// sessionRejected reports whether resp refuses the request's session: 404,
// as the MCP specification says, or 400 with a message about the session,
// as the TypeScript SDK's example servers (server-everything) answer.
func sessionRejected(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusNotFound:
		return true
	case http.StatusBadRequest:
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		return bytes.Contains(bytes.ToLower(head), []byte("session"))
	}
	return false
}

// debugOnly passes every record on at debug level.
type debugOnly struct{ h slog.Handler }

func (d debugOnly) Enabled(ctx context.Context, _ slog.Level) bool {
	return d.h.Enabled(ctx, slog.LevelDebug)
}

func (d debugOnly) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return d.h.Handle(ctx, r)
}

func (d debugOnly) WithAttrs(as []slog.Attr) slog.Handler { return debugOnly{d.h.WithAttrs(as)} }
func (d debugOnly) WithGroup(name string) slog.Handler    { return debugOnly{d.h.WithGroup(name)} }

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
		// mcp-go reports these without a wrapped cause: the first when a
		// streamed HTTP response ends before its answer.
		strings.Contains(err.Error(), "unexpected nil response") ||
		strings.Contains(err.Error(), "transport has been closed") ||
		strings.Contains(err.Error(), "endpoint not received") ||
		// net/http's unexported errServerClosedIdle: the server closed the
		// kept-alive connection a POST was sent on (it went away), which
		// net/http does not retry for a POST.
		strings.Contains(err.Error(), "http: server closed idle connection")
}
