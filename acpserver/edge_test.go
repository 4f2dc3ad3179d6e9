package acpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver"
	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
)

// A client that offers fs/*: the agent reads the editor's buffer (unsaved
// edits included) and the allowed change is written by the editor, not to
// disk.
func TestClientBuffersAndWrites(t *testing.T) {
	h := acptest.Start(t, editScript("done"), acptest.Options{FS: true})
	path := h.Write("a.txt", "hello\n")
	h.Client.SetBuffer(path, "hello\nunsaved line\n")
	id := h.NewSession()
	h.MustPrompt(id, "greet")
	if got := h.Read("a.txt"); got != "hello\n" {
		t.Fatalf("the server wrote the disk although the editor offered fs/write_text_file: %q", got)
	}
	rec := h.Client.Recorded()
	writes, reads := rec.Writes, rec.Reads
	if len(writes) != 1 || writes[0].Path != path || writes[0].Content != "hello, world\nunsaved line\n" {
		t.Fatalf("fs/write_text_file: %+v", writes)
	}
	if len(reads) == 0 || reads[0] != path {
		t.Fatalf("fs/read_text_file not used: %v", reads)
	}
	reqs := h.Chats()
	if res, _ := reqs[1].ToolResult("c1"); !strings.Contains(res, "unsaved line") {
		t.Fatalf("the model did not see the editor's buffer: %q", res)
	}
}

// session/cancel mid-stream: the prompt answers cancelled, nothing is
// written, and the session takes the next prompt.
func TestCancelMidStream(t *testing.T) {
	hang := llmtest.NewHang()
	n := 0
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		n++
		if n == 1 {
			return llmtest.Text("one two three four five").HangAfter(2, hang)
		}
		return llmtest.Text("fine")
	}, acptest.Options{})
	id := h.NewSession()
	got := make(chan acp.StopReason, 1)
	go func() {
		r, err := h.Prompt(id, "talk")
		if err != nil {
			t.Errorf("prompt: %v", err)
		}
		got <- r
	}()
	testwait.Recv(t, hang.Started(), "the model stream to hang")
	h.Client.Await(t, "streamed text", func(c acptest.Recorded) bool { return acptest.AgentText(c.Updates) != "" })
	if err := h.Conn.Cancel(h.Ctx(), acp.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if r := testwait.Recv(t, got, "the cancelled prompt's answer"); r != acp.StopReasonCancelled {
		t.Fatalf("stop reason %q", r)
	}
	testwait.Recv(t, hang.Disconnected(), "the model stream to close")
	if r := h.MustPrompt(id, "again"); r != acp.StopReasonEndTurn {
		t.Fatalf("after cancel: %q", r)
	}
}

// A session saved by one server is listed and loaded by the next (a
// restart): the conversation is replayed, and the next prompt continues it.
func TestLoadAfterRestart(t *testing.T) {
	script := func(r *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(r.LastUser(), "second") {
			return llmtest.Text("second answer")
		}
		if !r.HasToolResult("c1") {
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`)
		}
		return llmtest.Text("first answer")
	}
	h := acptest.Start(t, script, acptest.Options{})
	h.Write("a.txt", "hello\n")
	id := h.NewSession()
	h.MustPrompt(id, "first question")
	h.Close()

	h2 := acptest.Start(t, script, acptest.Options{Dir: h.Dir, State: h.State})
	list, err := h2.Conn.ListSessions(h2.Ctx(), acp.ListSessionsRequest{Cwd: &h2.Dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Cwd != h.Dir || *list.Sessions[0].Title != "first question" {
		t.Fatalf("session/list: %+v", list)
	}
	all, err := h2.Conn.ListSessions(h2.Ctx(), acp.ListSessionsRequest{})
	if err != nil || len(all.Sessions) != 1 {
		t.Fatalf("session/list without cwd: %+v %v", all, err)
	}
	if _, err := h2.Conn.LoadSession(h2.Ctx(), acp.LoadSessionRequest{SessionId: id, Cwd: h.Dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	us, _ := h2.Client.Snapshot()
	got := strings.Join(acptest.Kinds(us), ",")
	if !strings.HasPrefix(got, "user_message_chunk,tool_call,tool_call_update,agent_message_chunk") {
		t.Fatalf("replay: %s", got)
	}
	if us[0].Update.UserMessageChunk.Content.Text.Text != "first question" || acptest.AgentText(us) != "first answer" {
		t.Fatalf("replayed %+v / %q", us[0].Update.UserMessageChunk, acptest.AgentText(us))
	}
	if r := h2.MustPrompt(id, "second question"); r != acp.StopReasonEndTurn {
		t.Fatal(r)
	}
	reqs := h2.Chats()
	if !reqs[len(reqs)-1].Contains("first answer") {
		t.Fatal("the continued session's request lacks the earlier conversation")
	}
	if _, err := h2.Conn.LoadSession(h2.Ctx(), acp.LoadSessionRequest{SessionId: "0123456789ab", Cwd: h.Dir, McpServers: []acp.McpServer{}}); acptest.ReqErr(t, err).Code != -32602 {
		t.Fatalf("unknown session: %v", err)
	}
}

// Bad lines get JSON-RPC errors and the connection lives on; an unknown
// method is -32601.
func TestMalformedLineAndUnknownMethod(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := acpserver.New(acpserver.Options{Env: func(string) string { return "" }, StateDir: acpserver.NoState})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, outW); _ = outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(s string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %q: %v", s, lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", lines.Text(), err)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	if m := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,`); code(m) != -32700 || m["id"] != nil {
		t.Fatalf("malformed line: %v", m)
	}
	if m := send(`[{"jsonrpc":"2.0","id":2,"method":"initialize"}]`); code(m) != -32600 {
		t.Fatalf("batch: %v", m)
	}
	if m := send(`Content-Length: 99`); code(m) != -32700 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "agentls serve") {
		t.Fatalf("LSP header: %v", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":3,"method":"session/frobnicate","params":{}}`); code(m) != -32601 || m["id"] != float64(3) {
		t.Fatalf("unknown method: %v", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`); m["result"] == nil {
		t.Fatalf("initialize after bad input: %v", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}`); code(m) != -32602 {
		t.Fatalf("prompt for an unknown session: %v", m)
	}
	// Over the SDK's 10 MiB line limit (which would close its connection):
	// answered with the request's id, and the connection lives on.
	huge := `{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"` + strings.Repeat("a", 11<<20) + `"}]}}`
	if m := send(huge); code(m) != -32600 || m["id"] != float64(6) {
		t.Fatalf("11 MiB line: %v", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`); m["result"] == nil {
		t.Fatalf("initialize after the huge line: %v", m)
	}
	_ = inW.Close()
	if err := testwait.Recv(t, done, "Serve to end"); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	_ = outR.Close()
}

// A 10 MB prompt is refused with a message naming the bound; the session
// goes on.
func TestHugePrompt(t *testing.T) {
	h := acptest.Start(t, llmtest.Always(llmtest.Text("small answer")), acptest.Options{})
	id := h.NewSession()
	_, err := h.Prompt(id, strings.Repeat("0123456789", 1_000_000))
	if re := acptest.ReqErr(t, err); re.Code != -32602 || !strings.Contains(re.Message, "192000") {
		t.Fatalf("10 MB prompt: %v", err)
	}
	if len(h.Chats()) != 0 {
		t.Fatal("the huge prompt reached the model")
	}
	if r := h.MustPrompt(id, "small"); r != acp.StopReasonEndTurn {
		t.Fatal(r)
	}
}

// The client goes away mid-prompt: the run is cancelled, the model stream
// closed, Serve ends, and no goroutine is left (TestMain's goleak).
func TestClientVanishesMidPrompt(t *testing.T) {
	hang := llmtest.NewHang()
	h := acptest.Start(t, llmtest.Always(llmtest.Text("a b c d").HangAfter(1, hang)), acptest.Options{})
	id := h.NewSession()
	go func() { _, _ = h.Prompt(id, "talk") }()
	testwait.Recv(t, hang.Started(), "the model stream to hang")
	h.Disconnect()
	testwait.Recv(t, hang.Disconnected(), "the model stream to close")
	h.Close()
}

// Without a model, initialize answers (with an auth method saying what to
// set) and the first prompt fails with auth_required naming the settings.
func TestNoModelConfigured(t *testing.T) {
	h := acptest.Start(t, nil, acptest.Options{NoModel: true})
	res, err := h.Conn.Initialize(h.Ctx(), acp.InitializeRequest{ProtocolVersion: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.AuthMethods) != 1 || res.AuthMethods[0].Agent == nil || !strings.Contains(*res.AuthMethods[0].Agent.Description, "OPENAI_BASE_URL") {
		t.Fatalf("auth methods: %+v", res.AuthMethods)
	}
	if !res.AgentCapabilities.LoadSession || !res.AgentCapabilities.PromptCapabilities.EmbeddedContext {
		t.Fatalf("capabilities: %+v", res.AgentCapabilities)
	}
	id := h.NewSession()
	_, err = h.Prompt(id, "hi")
	if re := acptest.ReqErr(t, err); re.Code != -32000 || !strings.Contains(re.Message, "model.baseURL") {
		t.Fatalf("prompt without a model: %v", err)
	}
	if _, err := h.Conn.Authenticate(h.Ctx(), acp.AuthenticateRequest{MethodId: res.AuthMethods[0].Agent.Id}); acptest.ReqErr(t, err).Code != -32000 {
		t.Fatalf("authenticate without a model: %v", err)
	}
}

// Plan mode (session/set_mode) runs read-only with todo_write, whose plan
// reaches the client as a plan update; the model config option switches
// the model the requests name.
func TestPlanModeAndModelOption(t *testing.T) {
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasToolResult("t1") {
			return acptest.Call("t1", "todo_write", `{"todos":[{"content":"read the code","status":"in_progress"},{"content":"fix it","status":"pending"}]}`)
		}
		return llmtest.Text("1. read 2. fix")
	}, acptest.Options{})
	res, err := h.Conn.NewSession(h.Ctx(), acp.NewSessionRequest{Cwd: h.Dir, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Modes == nil || res.Modes.CurrentModeId != "preview" || len(res.Modes.AvailableModes) != 3 || len(res.ConfigOptions) != 2 {
		t.Fatalf("session/new: %+v", res)
	}
	if _, err := h.Conn.SetSessionMode(h.Ctx(), acp.SetSessionModeRequest{SessionId: res.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	opts, err := h.Conn.SetSessionConfigOption(h.Ctx(), acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
		SessionId: res.SessionId, ConfigId: "model", Value: "other-model"}})
	if err != nil || opts.ConfigOptions[1].Select.CurrentValue != "other-model" || opts.ConfigOptions[0].Select.CurrentValue != "plan" {
		t.Fatalf("set_config_option: %+v %v", opts, err)
	}
	h.MustPrompt(res.SessionId, "how would you fix it?")
	reqs := h.Chats()
	if reqs[0].Model != "other-model" || reqs[0].HasTool("edit_file") || !reqs[0].HasTool("todo_write") {
		t.Fatalf("plan-mode request: model %q tools %v", reqs[0].Model, reqs[0].ToolNames())
	}
	us, _ := h.Client.Snapshot()
	var plan *acp.SessionUpdatePlan
	for _, u := range us {
		if u.Update.Plan != nil {
			plan = u.Update.Plan
		}
	}
	if plan == nil || len(plan.Entries) != 2 || plan.Entries[0].Status != acp.PlanEntryStatusInProgress || plan.Entries[1].Content != "fix it" {
		t.Fatalf("plan: %+v", plan)
	}
	if _, err := h.Conn.SetSessionMode(h.Ctx(), acp.SetSessionModeRequest{SessionId: res.SessionId, ModeId: "yolo"}); acptest.ReqErr(t, err).Code != -32602 {
		t.Fatalf("bad mode: %v", err)
	}
}

// Skills are announced as available commands, and /name runs with the
// skill.
func TestSkillsAsCommands(t *testing.T) {
	h := acptest.Start(t, llmtest.Always(llmtest.Text("ok")), acptest.Options{})
	h.Write(".agentls/skills/release-notes/SKILL.md", "---\nname: release-notes\ndescription: Write release notes from the git log\n---\nSteps.\n")
	id := h.NewSession()
	h.Client.Await(t, "available_commands_update", func(c acptest.Recorded) bool {
		for _, u := range c.Updates {
			if a := u.Update.AvailableCommandsUpdate; a != nil && len(a.AvailableCommands) == 1 && a.AvailableCommands[0].Name == "release-notes" {
				return true
			}
		}
		return false
	})
	h.MustPrompt(id, "/release-notes for v2")
	if last := h.Chats()[0].LastUser(); !strings.Contains(last, "Use the skill release-notes") || !strings.Contains(last, "for v2") {
		t.Fatalf("the command did not reach the model as a skill: %q", last)
	}
}

// Embedded resources (the editor's selection, files) and links become the
// task's attachments.
func TestEmbeddedContext(t *testing.T) {
	h := acptest.Start(t, llmtest.Always(llmtest.Text("ok")), acptest.Options{})
	id := h.NewSession()
	file := "file://" + filepath.ToSlash(filepath.Join(h.Dir, "main.go"))
	_, err := h.Conn.Prompt(h.Ctx(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{
		acp.TextBlock("explain "),
		acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{Uri: file + "#L3:4", Text: "func main() {}\n"}}),
		acp.TextBlock(" and "),
		acp.ResourceLinkBlock("go.mod", "file://"+filepath.ToSlash(filepath.Join(h.Dir, "go.mod"))),
	}})
	if err != nil {
		t.Fatal(err)
	}
	last := h.Chats()[0].LastUser()
	for _, want := range []string{"explain @main.go:3-4 and @go.mod", "<file path=\"main.go:3-4\">", "func main() {}", "<link path=\"go.mod\">"} {
		if !strings.Contains(last, want) {
			t.Fatalf("task lacks %q:\n%s", want, last)
		}
	}
	_, err = h.Conn.Prompt(h.Ctx(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.ImageBlock("AAAA", "image/png")}})
	if re := acptest.ReqErr(t, err); re.Code != -32602 {
		t.Fatalf("image: %v", err)
	}
}

var _ = slog.Default
var _ = time.Second

// The client goes away while a permission question is open: the question
// is abandoned (the change stays pending in the saved session), Serve
// ends, and nothing is left running.
func TestClientVanishesDuringPermission(t *testing.T) {
	h := acptest.Start(t, editScript("done"), acptest.Options{})
	h.Write("a.txt", "hello\n")
	asked := make(chan struct{})
	release := make(chan struct{})
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		close(asked)
		<-release
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
	}
	id := h.NewSession()
	go func() { _, _ = h.Prompt(id, "greet") }()
	testwait.Recv(t, asked, "the permission request")
	h.Disconnect()
	h.Close()
	close(release)
	if got := h.Read("a.txt"); got != "hello\n" {
		t.Fatalf("written without an answer: %q", got)
	}
	// The change waits in the saved session for the next front-end.
	h2 := acptest.Start(t, editScript("done"), acptest.Options{Dir: h.Dir, State: h.State})
	if _, err := h2.Conn.LoadSession(h2.Ctx(), acp.LoadSessionRequest{SessionId: id, Cwd: h.Dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	h2.MustPrompt(id, "go on")
	if got := h2.Read("a.txt"); got != "hello, world\n" {
		t.Fatalf("the pending change was not offered again: %q", got)
	}
}
