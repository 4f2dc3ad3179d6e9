package acpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
)

// Test harness: a real acpserver.Server on in-process pipes, driven by the
// Go SDK's ClientSideConnection with a scripted client (fakeClient), the
// model a scripted llmtest server (real HTTP and SSE), the configuration a
// closed world (environment from the test, state in a temporary dir).

// fakeClient is the editor side: it records every session/update and
// answers permission requests and fs/* calls as the test says.
type fakeClient struct {
	mu       sync.Mutex
	updates  []acp.SessionNotification
	perms    []acp.RequestPermissionRequest
	reads    []string
	writes   []acp.WriteTextFileRequest
	changed  chan struct{} // closed and replaced on every recorded message
	buffers  map[string]string
	onPerm   func(acp.RequestPermissionRequest) acp.RequestPermissionResponse
	onUpdate func(acp.SessionNotification)
}

func newFakeClient() *fakeClient {
	return &fakeClient{changed: make(chan struct{}), buffers: map[string]string{}}
}

func (c *fakeClient) note() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *fakeClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	fn := c.onUpdate
	c.note()
	c.mu.Unlock()
	if fn != nil {
		fn(n)
	}
	return nil
}

func (c *fakeClient) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	fn := c.onPerm
	c.note()
	c.mu.Unlock()
	if fn == nil {
		return allow(optionID(p, acp.PermissionOptionKindAllowOnce)), nil
	}
	return fn(p), nil
}

func (c *fakeClient) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	c.note()
	if t, ok := c.buffers[p.Path]; ok {
		return acp.ReadTextFileResponse{Content: t}, nil
	}
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	return acp.ReadTextFileResponse{Content: string(b)}, nil
}

func (c *fakeClient) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, p)
	c.buffers[p.Path] = p.Content
	c.note()
	return acp.WriteTextFileResponse{}, nil
}

func (c *fakeClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound("terminal/create")
}
func (c *fakeClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound("terminal/kill")
}
func (c *fakeClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound("terminal/output")
}
func (c *fakeClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound("terminal/release")
}
func (c *fakeClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound("terminal/wait_for_exit")
}

// await waits until pred holds for the recorded state.
func (c *fakeClient) await(t testing.TB, what string, pred func(c *fakeClient) bool) {
	t.Helper()
	deadline := time.NewTimer(testwait.Limit)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok := pred(c)
		ch := c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// snapshot returns copies of what was recorded.
func (c *fakeClient) snapshot() (updates []acp.SessionNotification, perms []acp.RequestPermissionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.SessionNotification(nil), c.updates...), append([]acp.RequestPermissionRequest(nil), c.perms...)
}

func allow(id acp.PermissionOptionId) acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(id)}
}

// optionID finds the option of kind in a permission request.
func optionID(p acp.RequestPermissionRequest, kind acp.PermissionOptionKind) acp.PermissionOptionId {
	for _, o := range p.Options {
		if o.Kind == kind {
			return o.OptionId
		}
	}
	return ""
}

// harness is a server and a connected client.
type harness struct {
	t      testing.TB
	client *fakeClient
	conn   *acp.ClientSideConnection
	model  *llmtest.Server
	dir    string // the workspace (cwd)
	state  string // XDG_STATE_HOME
	env    map[string]string
	logs   *bytes.Buffer
	inW    *io.PipeWriter
	outW   *io.PipeWriter
	served chan error
	once   sync.Once
}

type harnessOpts struct {
	noModel bool
	dir     string // reuse a workspace
	state   string // reuse a state directory
	fs      bool   // the client offers fs/read_text_file and fs/write_text_file
	env     map[string]string
	meta    map[string]any // clientCapabilities._meta
	model   []llmtest.Option
}

// start serves a new connection and initializes it.
func start(t testing.TB, script llmtest.Script, o harnessOpts) *harness {
	t.Helper()
	h := &harness{t: t, client: newFakeClient(), dir: o.dir, state: o.state, served: make(chan error, 1), logs: &bytes.Buffer{}}
	if h.dir == "" {
		h.dir = realDir(t, t.TempDir())
	}
	if h.state == "" {
		h.state = t.TempDir()
	}
	home := t.TempDir()
	h.env = map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_STATE_HOME": h.state}
	if !o.noModel {
		h.model = llmtest.New(t, script, o.model...)
		h.env["OPENAI_BASE_URL"] = h.model.URL()
		h.env["AGENTLS_MODEL"] = "test-model"
	}
	for k, v := range o.env {
		h.env[k] = v
	}
	env := h.env
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedBuf{&logMu, h.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := acpserver.New(acpserver.Options{Version: "test", Logger: logger, Env: func(k string) string { return env[k] },
		StateDir: filepath.Join(h.state, "agentls"), TranscriptDir: acpserver.NoState, ViewDir: filepath.Join(home, "views")})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h.inW, h.outW = inW, outW
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		_ = outW.Close()
		h.served <- err
	}()
	h.conn = acp.NewClientSideConnection(h.client, inW, outR)
	h.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		h.close()
		if t.Failed() {
			logMu.Lock()
			t.Logf("server logs:\n%s", h.logs.String())
			logMu.Unlock()
		}
	})
	caps := acp.ClientCapabilities{Meta: o.meta}
	caps.Fs.ReadTextFile, caps.Fs.WriteTextFile = o.fs, o.fs
	if _, err := h.conn.Initialize(h.ctx(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return h
}

type lockedBuf struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// close ends the client's side and waits for the server to end.
func (h *harness) close() {
	h.once.Do(func() {
		_ = h.inW.Close()
		select {
		case <-h.served:
		case <-time.After(testwait.Limit):
			h.t.Errorf("server did not end after the client closed its end")
		}
		_ = h.outW.Close()
		<-h.conn.Done()
	})
}

func (h *harness) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
	h.t.Cleanup(cancel)
	return ctx
}

// newSession opens a session in the workspace.
func (h *harness) newSession() acp.SessionId {
	h.t.Helper()
	res, err := h.conn.NewSession(h.ctx(), acp.NewSessionRequest{Cwd: h.dir, McpServers: []acp.McpServer{}})
	if err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return res.SessionId
}

// prompt sends a text prompt and returns the stop reason.
func (h *harness) prompt(id acp.SessionId, text string) (acp.StopReason, error) {
	res, err := h.conn.Prompt(h.ctx(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	return res.StopReason, err
}

func (h *harness) mustPrompt(id acp.SessionId, text string) acp.StopReason {
	h.t.Helper()
	r, err := h.prompt(id, text)
	if err != nil {
		h.t.Fatalf("session/prompt: %v", err)
	}
	return r
}

// write creates a file in the workspace.
func (h *harness) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *harness) read(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func realDir(t testing.TB, d string) string {
	r, err := filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// kinds lists the sessionUpdate kinds in order.
func kinds(us []acp.SessionNotification) []string {
	var out []string
	for _, u := range us {
		b, _ := json.Marshal(u.Update)
		var k struct {
			SessionUpdate string `json:"sessionUpdate"`
		}
		_ = json.Unmarshal(b, &k)
		out = append(out, k.SessionUpdate)
	}
	return out
}

// agentText is the concatenated agent_message_chunk text.
func agentText(us []acp.SessionNotification) string {
	var b strings.Builder
	for _, u := range us {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// toolCalls returns the tool_call updates.
func toolCalls(us []acp.SessionNotification) []*acp.SessionUpdateToolCall {
	var out []*acp.SessionUpdateToolCall
	for _, u := range us {
		if u.Update.ToolCall != nil {
			out = append(out, u.Update.ToolCall)
		}
	}
	return out
}

// toolUpdates returns the tool_call_update updates of id.
func toolUpdates(us []acp.SessionNotification, id acp.ToolCallId) []*acp.SessionToolCallUpdate {
	var out []*acp.SessionToolCallUpdate
	for _, u := range us {
		if t := u.Update.ToolCallUpdate; t != nil && t.ToolCallId == id {
			out = append(out, t)
		}
	}
	return out
}

// reqErr returns err as an ACP request error.
func reqErr(t testing.TB, err error) *acp.RequestError {
	t.Helper()
	var re *acp.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return re
}

// call is one scripted tool call.
func call(id, name, args string) llmtest.Reply {
	return llmtest.ToolCalls(llmtest.Call{ID: id, Name: name, Args: args})
}

// chats returns the chat requests the model received (the server also
// asks GET /models in the background, for the model option).
func (h *harness) chats() []llmtest.RecordedRequest { return chatRequests(h.model) }

func chatRequests(m *llmtest.Server) []llmtest.RecordedRequest {
	var out []llmtest.RecordedRequest
	for _, r := range m.Requests() {
		if r.Path == "/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}
