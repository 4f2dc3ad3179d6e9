// Package acptest drives a real acpserver.Server for tests, as lsptest
// does for the LSP face: the server runs on in-process pipes, the client
// side is the Go SDK's ClientSideConnection with a scripted editor
// (Client), the model is a scripted llmtest server (real HTTP and SSE),
// and the configuration is a closed world (environment from the test,
// state in temporary directories). It lives in the ACP face, so the
// face's own tests and the cross-face tests of the cmd layer
// (cmd/agentls/faces) share one harness while the faces never import
// each other.
package acptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/agent/revert"
	"github.com/agentls/agentls/internal/testwait"
)

// Client is the editor side: it records every session/update and answers
// permission requests and fs/* calls as the test says. Without
// OnPermission it allows once; fs/read_text_file answers from the
// buffers SetBuffer gave it, else the disk.
type Client struct {
	// OnPermission, when set, answers session/request_permission. Set it
	// before the prompt that asks.
	OnPermission func(acp.RequestPermissionRequest) acp.RequestPermissionResponse
	// OnUpdate, when set, sees every session/update after it is recorded.
	OnUpdate func(acp.SessionNotification)
	// OnRead, when set, answers fs/read_text_file (after it is recorded).
	OnRead func(acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error)

	mu      sync.Mutex
	rec     Recorded
	changed chan struct{} // closed and replaced on every recorded message
	buffers map[string]string
}

// Recorded is what the client received so far.
type Recorded struct {
	Updates []acp.SessionNotification
	Perms   []acp.RequestPermissionRequest
	Reads   []string
	Writes  []acp.WriteTextFileRequest
}

// NewClient returns a client with nothing recorded.
func NewClient() *Client {
	return &Client{changed: make(chan struct{}), buffers: map[string]string{}}
}

func (c *Client) note() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// SessionUpdate records a session/update.
func (c *Client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	c.rec.Updates = append(c.rec.Updates, n)
	fn := c.OnUpdate
	c.note()
	c.mu.Unlock()
	if fn != nil {
		fn(n)
	}
	return nil
}

// RequestPermission records the request and answers it (OnPermission,
// else allow once).
func (c *Client) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.rec.Perms = append(c.rec.Perms, p)
	fn := c.OnPermission
	c.note()
	c.mu.Unlock()
	if fn == nil {
		return Allow(OptionID(p, acp.PermissionOptionKindAllowOnce)), nil
	}
	return fn(p), nil
}

// ReadTextFile answers from the client's buffers, else the disk.
func (c *Client) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.rec.Reads = append(c.rec.Reads, p.Path)
	c.note()
	t, ok := c.buffers[p.Path]
	fn := c.OnRead
	c.mu.Unlock()
	if fn != nil {
		return fn(p)
	}
	if ok {
		return acp.ReadTextFileResponse{Content: t}, nil
	}
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	return acp.ReadTextFileResponse{Content: string(b)}, nil
}

// WriteTextFile records the write into the client's buffers (an editor
// saves them when the user says so; tests write the disk themselves).
func (c *Client) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rec.Writes = append(c.rec.Writes, p)
	c.buffers[p.Path] = p.Content
	c.note()
	return acp.WriteTextFileResponse{}, nil
}

// SetBuffer makes text the editor's unsaved buffer of path.
func (c *Client) SetBuffer(path, text string) {
	c.mu.Lock()
	c.buffers[path] = text
	c.mu.Unlock()
}

// CreateTerminal and the other terminal methods are not offered.
func (c *Client) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound("terminal/create")
}

// KillTerminal is not offered.
func (c *Client) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound("terminal/kill")
}

// TerminalOutput is not offered.
func (c *Client) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound("terminal/output")
}

// ReleaseTerminal is not offered.
func (c *Client) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound("terminal/release")
}

// WaitForTerminalExit is not offered.
func (c *Client) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound("terminal/wait_for_exit")
}

// Await waits until pred holds for what was recorded (pred gets a view
// it must not keep).
func (c *Client) Await(t testing.TB, what string, pred func(r Recorded) bool) {
	t.Helper()
	deadline := time.NewTimer(testwait.Limit)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok := pred(c.rec)
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

// Snapshot returns copies of the updates and permission requests.
func (c *Client) Snapshot() (updates []acp.SessionNotification, perms []acp.RequestPermissionRequest) {
	r := c.Recorded()
	return r.Updates, r.Perms
}

// Recorded returns a copy of everything recorded.
func (c *Client) Recorded() Recorded {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Recorded{Updates: slices.Clone(c.rec.Updates), Perms: slices.Clone(c.rec.Perms),
		Reads: slices.Clone(c.rec.Reads), Writes: slices.Clone(c.rec.Writes)}
}

// Allow is the answer choosing option id.
func Allow(id acp.PermissionOptionId) acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(id)}
}

// OptionID finds the option of kind in a permission request.
func OptionID(p acp.RequestPermissionRequest, kind acp.PermissionOptionKind) acp.PermissionOptionId {
	for _, o := range p.Options {
		if o.Kind == kind {
			return o.OptionId
		}
	}
	return ""
}

// RunID is the run id the first permission request's _meta names.
func RunID(t testing.TB, perms []acp.RequestPermissionRequest) string {
	t.Helper()
	if len(perms) == 0 {
		t.Fatal("no permission request")
	}
	a, _ := perms[0].Meta["agentls"].(map[string]any)
	id, _ := a["runId"].(string)
	if id == "" {
		t.Fatalf("no runId in _meta: %v", perms[0].Meta)
	}
	return id
}

// Harness is a server and a connected, initialized client.
type Harness struct {
	Client *Client
	Conn   *acp.ClientSideConnection
	Model  *llmtest.Server // nil with Options.NoModel
	Dir    string          // the workspace (session cwd)
	State  string          // XDG_STATE_HOME
	Env    map[string]string

	t      testing.TB
	logMu  sync.Mutex
	logs   bytes.Buffer
	wireMu sync.Mutex
	wire   bytes.Buffer // what the server wrote
	inW    *io.PipeWriter
	outW   *io.PipeWriter
	served chan error
	once   sync.Once
}

// Options shape a Harness.
type Options struct {
	NoModel bool              // no model configured
	Dir     string            // reuse a workspace ("" a new one)
	State   string            // reuse a state directory ("" a new one)
	FS      bool              // the client offers fs/read_text_file and fs/write_text_file
	Env     map[string]string // added to (and overriding) the environment
	Meta    map[string]any    // clientCapabilities._meta
	Model   []llmtest.Option
}

// Start serves a new connection and initializes it; the test's end closes
// it (and logs the server's logs if the test failed).
func Start(t testing.TB, script llmtest.Script, o Options) *Harness {
	t.Helper()
	h := &Harness{t: t, Client: NewClient(), Dir: o.Dir, State: o.State, served: make(chan error, 1)}
	if h.Dir == "" {
		h.Dir = RealDir(t, t.TempDir())
	}
	if h.State == "" {
		h.State = t.TempDir()
	}
	home := t.TempDir()
	h.Env = map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_STATE_HOME": h.State}
	if !o.NoModel {
		h.Model = llmtest.New(t, script, o.Model...)
		h.Env["OPENAI_BASE_URL"] = h.Model.URL()
		h.Env["AGENTLS_MODEL"] = "test-model"
	}
	for k, v := range o.Env {
		h.Env[k] = v
	}
	env := h.Env
	logger := slog.New(slog.NewTextHandler(lockedBuf{&h.logMu, &h.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := acpserver.New(acpserver.Options{Version: "test", Logger: logger, Env: func(k string) string { return env[k] },
		StateDir: filepath.Join(h.State, "agentls"), TranscriptDir: acpserver.NoState, ViewDir: filepath.Join(home, "views")})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h.inW, h.outW = inW, outW
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		_ = outW.Close()
		h.served <- err
	}()
	h.Conn = acp.NewClientSideConnection(h.Client, inW, io.TeeReader(outR, lockedBuf{&h.wireMu, &h.wire}))
	h.Conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		h.Close()
		if t.Failed() {
			t.Logf("server logs:\n%s", h.Logs())
		}
	})
	caps := acp.ClientCapabilities{Meta: o.Meta}
	caps.Fs.ReadTextFile, caps.Fs.WriteTextFile = o.FS, o.FS
	if _, err := h.Conn.Initialize(h.Ctx(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
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

// Logs is what the server logged so far.
func (h *Harness) Logs() string {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return h.logs.String()
}

// ServerOutput is every line the server wrote to the client so far.
func (h *Harness) ServerOutput() []string {
	h.wireMu.Lock()
	defer h.wireMu.Unlock()
	return strings.Split(strings.TrimSuffix(h.wire.String(), "\n"), "\n")
}

// UserConfig writes the user's config file (read at every prompt).
func (h *Harness) UserConfig(json string) {
	h.t.Helper()
	p := filepath.Join(h.Env["XDG_CONFIG_HOME"], "agentls", "config.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(json), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// Close ends the client's side and waits for the server to end.
func (h *Harness) Close() {
	h.once.Do(func() {
		_ = h.inW.Close()
		select {
		case <-h.served:
		case <-time.After(testwait.Limit):
			h.t.Errorf("server did not end after the client closed its end")
		}
		_ = h.outW.Close()
		<-h.Conn.Done()
	})
}

// Disconnect closes both ends of the connection at once, as a client
// that vanishes does; Close still waits for the server.
func (h *Harness) Disconnect() {
	_ = h.inW.Close()
	_ = h.outW.Close()
}

// Ctx is a context for one call, ending with the test (a safety net
// against hangs, not a timing assertion).
func (h *Harness) Ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
	h.t.Cleanup(cancel)
	return ctx
}

// NewSession opens a session in the workspace.
func (h *Harness) NewSession() acp.SessionId {
	h.t.Helper()
	res, err := h.Conn.NewSession(h.Ctx(), acp.NewSessionRequest{Cwd: h.Dir, McpServers: []acp.McpServer{}})
	if err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return res.SessionId
}

// Prompt sends a text prompt and returns the stop reason.
func (h *Harness) Prompt(id acp.SessionId, text string) (acp.StopReason, error) {
	res, err := h.Conn.Prompt(h.Ctx(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	return res.StopReason, err
}

// MustPrompt is Prompt failing the test on an error.
func (h *Harness) MustPrompt(id acp.SessionId, text string) acp.StopReason {
	h.t.Helper()
	r, err := h.Prompt(id, text)
	if err != nil {
		h.t.Fatalf("session/prompt: %v", err)
	}
	return r
}

// Write creates a file in the workspace and returns its path.
func (h *Harness) Write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// Read is a workspace file's content.
func (h *Harness) Read(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.Dir, rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// Chats returns the chat requests the model received (the server also
// asks GET /models in the background, for the model option).
func (h *Harness) Chats() []llmtest.RecordedRequest { return ChatRequests(h.Model) }

// ChatRequests are m's chat completion requests.
func ChatRequests(m *llmtest.Server) []llmtest.RecordedRequest {
	var out []llmtest.RecordedRequest
	for _, r := range m.Requests() {
		if r.Path == "/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}

// RealDir is d with symlinks resolved (the server reports real paths).
func RealDir(t testing.TB, d string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Kinds lists the sessionUpdate kinds in order.
func Kinds(us []acp.SessionNotification) []string {
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

// AgentText is the concatenated agent_message_chunk text.
func AgentText(us []acp.SessionNotification) string {
	var b strings.Builder
	for _, u := range us {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the tool_call updates.
func ToolCalls(us []acp.SessionNotification) []*acp.SessionUpdateToolCall {
	var out []*acp.SessionUpdateToolCall
	for _, u := range us {
		if u.Update.ToolCall != nil {
			out = append(out, u.Update.ToolCall)
		}
	}
	return out
}

// ToolUpdates returns the tool_call_update updates of id.
func ToolUpdates(us []acp.SessionNotification, id acp.ToolCallId) []*acp.SessionToolCallUpdate {
	var out []*acp.SessionToolCallUpdate
	for _, u := range us {
		if t := u.Update.ToolCallUpdate; t != nil && t.ToolCallId == id {
			out = append(out, t)
		}
	}
	return out
}

// ContentText is the text of tool call content (text blocks, and the
// new text of diffs).
func ContentText(cs []acp.ToolCallContent) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Content != nil && c.Content.Content.Text != nil {
			b.WriteString(c.Content.Content.Text.Text)
		}
	}
	return b.String()
}

// UpdateTexts is the text of every tool_call_update's content.
func UpdateTexts(us []acp.SessionNotification) string {
	var b strings.Builder
	for _, u := range us {
		if tc := u.Update.ToolCallUpdate; tc != nil {
			b.WriteString(ContentText(tc.Content))
			b.WriteString("\n")
		}
	}
	return b.String()
}

// ReqErr returns err as an ACP request error.
func ReqErr(t testing.TB, err error) *acp.RequestError {
	t.Helper()
	var re *acp.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return re
}

// Call is one scripted tool call.
func Call(id, name, args string) llmtest.Reply {
	return llmtest.ToolCalls(llmtest.Call{ID: id, Name: name, Args: args})
}

// RevertOrig is a.txt before EditAndCreate's run.
const RevertOrig = "# title\nhello\nlast\n"

// EditAndCreate is a run that edits line 2 of a.txt and creates NEW.md,
// then answers answer (and "noted" to a prompt asking "what changed?").
func EditAndCreate(answer string) llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(r.LastUser(), "what changed?") {
			return llmtest.Text("noted")
		}
		switch {
		case !r.HasToolResult("c1"):
			return Call("c1", "read_file", `{"path":"a.txt"}`)
		case !r.HasToolResult("c2"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "c2", Name: "edit_file", Args: `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`},
				llmtest.Call{ID: "c3", Name: "write_file", Args: `{"path":"NEW.md","content":"new\n"}`})
		}
		return llmtest.Text(answer)
	}
}

// Reverts is the revert snapshot store of h's state directory.
func (h *Harness) Reverts() *revert.Store {
	return revert.NewStore(filepath.Join(h.State, "agentls", "reverts"))
}
