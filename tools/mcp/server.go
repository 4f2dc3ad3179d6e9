package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os/exec"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agentls/agentls/internal/redact"
)

// stableAfter is how long a connection must have lasted for its loss to
// start a fresh round of reconnection attempts; a server that keeps dying
// sooner fails for good after ReconnectAttempts.
const stableAfter = time.Minute

// server is one configured MCP server and its connection loop.
type server struct {
	m       *Manager
	name    string // configured name
	part    string // sanitised name used in tool names
	cfg     ServerConfig
	refused bool // over MaxServers: never started
	log     *slog.Logger
	refresh chan struct{} // tools/list_changed, coalesced

	mu        sync.Mutex
	state     State
	err       error
	conn      *conn               // when ready
	tools     map[string]*mcpTool // registry name → tool, when ready
	refreshes int
	calls     map[string]string // progress token → tool name, for calls in flight

	// Elicitation bounds (elicit_guard.go): calls started and requests for
	// input since the server last had no call in flight, and the one turn
	// at showing a request to the user.
	busyCalls, busyElicits int
	elicitTurn             chan struct{}
}

// errClosed is why servers are unavailable after Manager.Close.
var errClosed = errors.New("the MCP client was shut down")

// run connects, serves and reconnects with backoff until ctx ends or the
// server has failed ReconnectAttempts times in a row.
func (s *server) run(ctx context.Context) {
	defer func() {
		if ctx.Err() != nil {
			s.setState(StateFailed, errClosed)
		}
	}()
	if _, err := s.cfg.kind(); err != nil { // retrying cannot fix the configuration
		s.log.Error("mcp server misconfigured; its tools are unavailable", "err", err)
		s.setState(StateFailed, err)
		return
	}
	failures := 0
	delay := s.m.opts.ReconnectDelay
	for {
		started := time.Now()
		c, err := s.connect(ctx)
		if err == nil {
			err = s.serve(ctx, c)
			s.teardown(c, err)
			if ctx.Err() != nil {
				return
			}
			if time.Since(started) > stableAfter {
				failures, delay = 0, s.m.opts.ReconnectDelay
			}
			s.log.Warn("mcp server disconnected; reconnecting", "err", err)
		} else if ctx.Err() != nil {
			return
		} else if cannotStart(err) {
			s.log.Error("mcp server cannot start; its tools are unavailable", "err", err)
			s.setState(StateFailed, err)
			return
		}
		failures++
		if failures >= s.m.opts.ReconnectAttempts {
			s.log.Error("mcp server failed; its tools are unavailable", "err", err, "attempts", failures)
			s.setState(StateFailed, err)
			return
		}
		s.log.Debug("mcp server connection attempt failed", "err", err, "attempt", failures)
		s.setState(StateConnecting, err)
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		delay *= 2
	}
}

// connect dials, performs the MCP handshake and lists the tools.
func (s *server) connect(ctx context.Context) (*conn, error) {
	start := time.Now()
	c, err := s.dial(ctx)
	if err != nil {
		return nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, s.m.opts.ConnectTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "agentls", Version: s.m.opts.ClientVersion}
	info, err := c.client.Initialize(hctx, req)
	if err != nil {
		err = fmt.Errorf("initialize: %w", err)
	} else {
		err = s.listTools(hctx, c)
	}
	if err != nil {
		err = s.explain(hctx, c, err)
		c.close()
		return nil, err
	}
	s.log.Info("mcp server ready", "server_name", info.ServerInfo.Name, "protocol", info.ProtocolVersion,
		"tools", len(s.toolNames()), "startup", time.Since(start).Round(time.Millisecond))
	s.setState(StateReady, nil)
	return c, nil
}

// explain turns a handshake error into one a user can act on: the child's
// exit status and stderr when it died, the timeout when it never answered.
func (s *server) explain(ctx context.Context, c *conn, err error) error {
	if c.proc != nil {
		if errors.Is(err, transport.ErrTransportClosed) {
			select {
			case <-c.proc.exited:
				return fmt.Errorf("server exited during start-up: %w", c.proc.exitError())
			case <-time.After(time.Second):
			}
		}
		if tail := c.proc.stderrTail(); tail != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tail)
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", s.m.opts.ConnectTimeout, err)
	}
	return err
}

// serve waits until the connection dies or ctx ends, refreshing the tools on
// tools/list_changed. It runs on the server's own goroutine, never on the
// transport's read loop, so it may call the server.
func (s *server) serve(ctx context.Context, c *conn) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.lost:
			return c.lostErr
		case <-s.refresh:
			lctx, cancel := context.WithTimeout(ctx, s.m.opts.ConnectTimeout)
			err := s.listTools(lctx, c)
			cancel()
			if err != nil {
				switch {
				case ctx.Err() != nil: // closing
				case isConnError(err):
					c.markLost(err)
				default:
					s.log.Warn("mcp server: refreshing tools failed", "err", err)
				}
				continue
			}
			s.mu.Lock()
			s.refreshes++
			s.mu.Unlock()
			s.m.notify()
		}
	}
}

// teardown removes the server's tools and closes the connection; calls
// made from now on fail with why.
func (s *server) teardown(c *conn, why error) {
	s.mu.Lock()
	s.state, s.err = StateConnecting, why
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	s.tools = nil
	s.conn = nil
	s.mu.Unlock()
	for _, n := range names {
		s.m.opts.Registry.Remove(n)
	}
	c.markLost(errors.New("connection closed"))
	c.close()
	s.m.notify()
}

// listTools fetches every page of tools and replaces the server's tools in
// the registry with them.
func (s *server) listTools(ctx context.Context, c *conn) error {
	listed, err := listToolsRaw(ctx, c.client.GetTransport())
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	orig := make([]string, 0, len(listed))
	for _, t := range listed {
		orig = append(orig, t.Name)
	}
	names := toolNames(s.part, orig)
	fresh := make(map[string]*mcpTool, len(listed))
	for _, t := range listed {
		fresh[names[t.Name]] = newTool(s, names[t.Name], t)
	}
	s.mu.Lock()
	old := s.tools
	s.tools = fresh
	s.conn = c
	s.mu.Unlock()
	for n := range old {
		if _, ok := fresh[n]; !ok {
			s.m.opts.Registry.Remove(n)
		}
	}
	for _, t := range fresh {
		s.m.opts.Registry.Add(t)
	}
	return nil
}

// onNotification runs on the transport's read loop: it must not call the
// server (that would wait on the loop it runs on), so tools/list_changed is
// handed to serve.
func (s *server) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case mcp.MethodNotificationToolsListChanged:
		select {
		case s.refresh <- struct{}{}:
		default:
		}
	case string(mcp.MethodNotificationProgress):
		s.onProgress(n.Params.AdditionalFields)
	}
}

func (s *server) onProgress(f map[string]any) {
	if s.m.opts.OnProgress == nil {
		return
	}
	token := fmt.Sprint(f["progressToken"])
	s.mu.Lock()
	tool, ok := s.calls[token]
	s.mu.Unlock()
	if !ok {
		return
	}
	p := Progress{Server: s.name, Tool: tool}
	p.Progress, _ = f["progress"].(float64)
	p.Total, _ = f["total"].(float64)
	p.Message, _ = f["message"].(string)
	s.m.opts.OnProgress(p)
}

// trackCall registers a progress token for a call; the returned func
// forgets it.
func (s *server) trackCall(token, tool string) func() {
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]string{}
	}
	s.calls[token] = tool
	s.busyCalls++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.calls, token)
		if len(s.calls) == 0 {
			s.busyCalls, s.busyElicits = 0, 0
		}
		s.mu.Unlock()
	}
}

// current is the live connection, or the reason there is none.
func (s *server) current() (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil && s.state == StateReady {
		return s.conn, nil
	}
	if s.err != nil {
		return nil, s.err
	}
	return nil, fmt.Errorf("server is %s", s.state)
}

// rootsChanged tells a connected server that the roots changed.
func (s *server) rootsChanged(ctx context.Context) {
	c, err := s.current()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.ConnectTimeout)
	defer cancel()
	if err := c.client.RootListChanges(ctx); err != nil {
		s.log.Debug("mcp server: roots/list_changed not sent", "err", err)
	}
}

func (s *server) setState(st State, err error) {
	s.mu.Lock()
	s.state, s.err = st, err
	s.mu.Unlock()
	s.m.notify()
}

func (s *server) toolNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.tools))
	for n := range s.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s *server) status() ServerStatus {
	st := ServerStatus{Name: s.name, Tools: s.toolNames()}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.State, st.Refreshes = s.state, s.refreshes
	if s.err != nil {
		st.Err = redact.Text(s.err.Error()) // a remote URL may carry a token
	}
	return st
}

// cannotStart reports whether a stdio server's command is missing or not
// executable: retrying cannot fix that, and runs waiting for the server
// should not wait through the retries.
func cannotStart(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)
}
