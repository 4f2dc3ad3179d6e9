package lspserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// sessionScript is a model that, for a prompt starting with "Bump",
// reads demo.go and bumps return 1 and return 3 (two hunks); for any other
// prompt it records the request and answers at once.
type sessionScript struct {
	mu       sync.Mutex
	followup *llmtest.ChatRequest
}

func (s *sessionScript) script(req *llmtest.ChatRequest) llmtest.Reply {
	if !strings.HasPrefix(lastTask(req), "Bump") {
		s.mu.Lock()
		s.followup = req
		s.mu.Unlock()
		return llmtest.Text("Second try done.")
	}
	switch {
	case !req.HasToolResult("r1"):
		return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "demo.go"})})
	case !req.HasToolResult("e1"):
		return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "multi_edit", Args: callArgs(map[string]any{"path": "demo.go", "edits": []map[string]any{
			{"old_string": "return 1", "new_string": "return 10"}, {"old_string": "return 3", "new_string": "return 30"}}})})
	}
	return llmtest.Text("Bumped.")
}

// lastTask is the text of the latest user message after its follow-up
// preamble, if any.
func lastTask(req *llmtest.ChatRequest) string {
	u := req.LastUser()
	if _, task, ok := strings.Cut(u, "## Your new task\n"); ok {
		return task
	}
	return u
}

func (s *sessionScript) request() *llmtest.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.followup
}

// runIn starts agentls.run and returns its run and session ids.
func runIn(t *testing.T, rs *runSession, args lspserver.RunArgs) lspserver.RunResult {
	t.Helper()
	var res lspserver.RunResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRun, args), &res); err != nil {
		t.Fatalf("agentls.run: %v", err)
	}
	if res.RunID == "" || res.SessionID == "" {
		t.Fatalf("agentls.run result %+v lacks runId or sessionId", res)
	}
	return res
}

func listSessions(t *testing.T, c *lsptest.Client) []lspserver.SessionInfo {
	t.Helper()
	var res lspserver.SessionsResult
	if err := c.Call(lsptest.Context(t), lspserver.MethodSessions, map[string]any{}, &res); err != nil {
		t.Fatalf("agentls/sessions: %v", err)
	}
	return res.Sessions
}

// A follow-up run in the same session sees the first run's conversation
// (its prompt and tool results) and why the user rejected its change; a
// run without sessionId starts a fresh conversation.
func TestSessionFollowupSeesConversationAndRejectReason(t *testing.T) {
	ms := &sessionScript{}
	rs := newRunSession(t, ms.script, runOpts{})
	e := editorFor(rs.session, text.UTF16)
	u := e.open(t, "demo.go", demoBase)

	first := runIn(t, rs, lspserver.RunArgs{Prompt: "Bump the return values.", URI: string(u)})
	if evs := rs.events(t, first.RunID); evs[len(evs)-1].Kind != "finished" {
		t.Fatalf("first run ended with %+v", evs[len(evs)-1])
	}
	hunks := e.hunks(t, u)
	if len(hunks) != 2 {
		t.Fatalf("hunks = %+v", hunks)
	}
	if n := e.reject(t, reviewArgs{HunkID: hunks[1].ID, Reason: "keep c at 3, it is a protocol constant"}); n != 1 {
		t.Fatalf("rejected %d", n)
	}

	second := runIn(t, rs, lspserver.RunArgs{Prompt: "Try again, leaving c alone.", SessionID: first.SessionID})
	if second.SessionID != first.SessionID || second.RunID == first.RunID {
		t.Fatalf("follow-up result %+v, first %+v", second, first)
	}
	rs.events(t, second.RunID)
	req := ms.request()
	if req == nil {
		t.Fatal("the model never saw the follow-up")
	}
	all, _ := json.Marshal(req.Messages)
	var userTexts []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			userTexts = append(userTexts, m.Content)
		}
	}
	if !strings.Contains(userTexts[0], "Bump the return values.") {
		t.Errorf("the follow-up does not carry the first prompt; user messages: %q", userTexts)
	}
	if res, ok := req.ToolResult("r1"); !ok || !strings.Contains(res, "func c() int") {
		t.Errorf("the follow-up does not carry the first run's read_file result (%v): %q", ok, res)
	}
	last := req.LastUser()
	for _, want := range []string{"keep c at 3, it is a protocol constant", "rejected 1 hunk", "still awaiting review: 1 hunk pending", "Try again, leaving c alone."} {
		if !strings.Contains(last, want) {
			t.Errorf("follow-up task message lacks %q:\n%s", want, last)
		}
	}
	if strings.Count(string(all), "Bump the return values.") != 1 {
		t.Errorf("first prompt carried %d times", strings.Count(string(all), "Bump the return values."))
	}

	ss := listSessions(t, rs.c)
	if len(ss) != 1 || ss[0].ID != first.SessionID || ss[0].Runs != 2 || ss[0].Pending != 1 || ss[0].Title != "Bump the return values." {
		t.Fatalf("agentls/sessions = %+v", ss)
	}

	// A new session starts from scratch.
	ms.mu.Lock()
	ms.followup = nil
	ms.mu.Unlock()
	fresh := runIn(t, rs, lspserver.RunArgs{Prompt: "Something else."})
	rs.events(t, fresh.RunID)
	if fresh.SessionID == first.SessionID {
		t.Fatal("a run without sessionId joined the earlier session")
	}
	if req := ms.request(); req == nil || req.HasToolResult("r1") || strings.Contains(req.LastUser(), "Since your previous run") {
		t.Fatalf("a fresh session saw an earlier conversation: %+v", req)
	}
	if got := listSessions(t, rs.c); len(got) != 2 || got[0].ID != fresh.SessionID {
		t.Fatalf("sessions after a fresh run = %+v", got)
	}
}

// An unknown sessionId is InvalidParams naming agentls/sessions.
func TestSessionUnknownID(t *testing.T) {
	rs := newRunSession(t, func(*llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("ok") }, runOpts{})
	err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
		command(lspserver.CommandRun, lspserver.RunArgs{Prompt: "x", SessionID: "0123456789ab"}), nil)
	if err == nil || !strings.Contains(err.Error(), "agentls/sessions") {
		t.Fatalf("agentls.run with an unknown session: %v", err)
	}
}

// stateSession is a run session whose sessions are saved under state,
// working on the workspace folder root.
func stateSession(t *testing.T, script llmtest.Script, state, root string) *runSession {
	t.Helper()
	return newRunSession(t, script, runOpts{
		env:  map[string]string{"XDG_STATE_HOME": state},
		init: lsptest.InitOptions{Folders: []string{root}},
	})
}

// A session file that does not parse is set aside with a warning; the
// server starts afresh and saves new sessions.
func TestSessionCorruptFile(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "demo.go"), demoBase)
	ms := &sessionScript{}
	rs := stateSession(t, ms.script, state, root)
	res := runIn(t, rs, lspserver.RunArgs{Prompt: "Bump the return values."})
	rs.events(t, res.RunID)
	files, _ := filepath.Glob(filepath.Join(state, "agentls", "sessions", "*", res.SessionID+".json"))
	if len(files) != 1 {
		t.Fatalf("session file not saved: %v", files)
	}
	info, err := os.Stat(files[0])
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("session file mode %v, %v", info.Mode(), err)
	}
	if dir, err := os.Stat(filepath.Dir(files[0])); err != nil || dir.Mode().Perm() != 0o700 {
		t.Fatalf("session dir mode %v, %v", dir.Mode(), err)
	}
	if err := os.WriteFile(files[0], []byte(`{"version": 1, "id": "`+res.SessionID+`", "runs": [`), 0o600); err != nil {
		t.Fatal(err)
	}

	rs2 := stateSession(t, ms.script, state, root)
	if ss := listSessions(t, rs2.c); len(ss) != 0 {
		t.Fatalf("sessions after a corrupt file = %+v", ss)
	}
	if !strings.Contains(rs2.logs.String(), "session file ignored") {
		t.Errorf("no warning about the corrupt file in the logs:\n%s", rs2.logs.String())
	}
	if _, err := os.Stat(files[0] + ".bad"); err != nil {
		t.Errorf("corrupt file not set aside: %v", err)
	}
	again := runIn(t, rs2, lspserver.RunArgs{Prompt: "Bump the return values."})
	rs2.events(t, again.RunID)
	if ss := listSessions(t, rs2.c); len(ss) != 1 || ss[0].ID != again.SessionID {
		t.Fatalf("sessions after a fresh run = %+v", ss)
	}
}

// A state directory that cannot be created is a logged warning: runs
// and sessions still work, in memory.
func TestSessionUnwritableStateDir(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	blocker := filepath.Join(state, "file")
	writeFile(t, blocker, "not a directory")
	writeFile(t, filepath.Join(root, "demo.go"), demoBase)
	ms := &sessionScript{}
	rs := stateSession(t, ms.script, blocker, root)
	res := runIn(t, rs, lspserver.RunArgs{Prompt: "Bump the return values."})
	if evs := rs.events(t, res.RunID); evs[len(evs)-1].Kind != "finished" {
		t.Fatalf("run ended with %+v", evs[len(evs)-1])
	}
	if ss := listSessions(t, rs.c); len(ss) != 1 || ss[0].Pending != 2 {
		t.Fatalf("sessions = %+v", ss)
	}
	if !strings.Contains(rs.logs.String(), "sessions are not saved") {
		t.Errorf("no warning about the state directory:\n%s", rs.logs.String())
	}
	follow := runIn(t, rs, lspserver.RunArgs{Prompt: "Again.", SessionID: res.SessionID})
	rs.events(t, follow.RunID)
	if req := ms.request(); req == nil || !req.HasToolResult("r1") {
		t.Fatal("the in-memory session lost its conversation")
	}
}

// Two servers on the same workspace at once each save their own
// sessions; a third server started later lists both sessions and each
// proposal once.
func TestSessionTwoServers(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "demo.go"), demoBase)
	writeFile(t, filepath.Join(root, "other.go"), strings.ReplaceAll(demoBase, "demo", "other"))
	script := func(file string) llmtest.Script {
		return func(req *llmtest.ChatRequest) llmtest.Reply {
			switch {
			case !req.HasToolResult("r1"):
				return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": file})})
			case !req.HasToolResult("e1"):
				return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": file, "old_string": "return 2", "new_string": "return 22"})})
			}
			return llmtest.Text("done")
		}
	}
	a := stateSession(t, script("demo.go"), state, root)
	b := stateSession(t, script("other.go"), state, root)
	ra := runIn(t, a, lspserver.RunArgs{Prompt: "edit demo"})
	rb := runIn(t, b, lspserver.RunArgs{Prompt: "edit other"})
	a.events(t, ra.RunID)
	b.events(t, rb.RunID)
	// Each server saves again after a decision-free follow-up of its own.
	fa := runIn(t, a, lspserver.RunArgs{Prompt: "edit demo", SessionID: ra.SessionID})
	a.events(t, fa.RunID)

	c := stateSession(t, script("x"), state, root)
	ss := listSessions(t, c.c)
	if len(ss) != 2 {
		t.Fatalf("sessions seen by a third server = %+v", ss)
	}
	ec := editorFor(c.session, text.UTF16)
	props := ec.proposals(t, "")
	byPath := map[string]int{}
	for _, p := range props {
		byPath[filepath.Base(string(p.URI))] += len(p.Hunks)
	}
	if len(props) != 2 || byPath["demo.go"] != 1 || byPath["other.go"] != 1 {
		t.Fatalf("proposals seen by a third server = %+v", props)
	}
}

// agentls.deleteSession and agentls.clearSessions forget sessions and
// remove their files.
func TestSessionDeleteAndClear(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	rs := stateSession(t, func(*llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("ok") }, state, root)
	one := runIn(t, rs, lspserver.RunArgs{Prompt: "one"})
	rs.events(t, one.RunID)
	two := runIn(t, rs, lspserver.RunArgs{Prompt: "two"})
	rs.events(t, two.RunID)
	three := runIn(t, rs, lspserver.RunArgs{Prompt: "three"})
	rs.events(t, three.RunID)
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
		command(lspserver.CommandDeleteSession, lspserver.SessionArgs{SessionID: one.SessionID}), nil); err != nil {
		t.Fatal(err)
	}
	ss := listSessions(t, rs.c)
	if len(ss) != 2 || ss[0].ID != three.SessionID || ss[1].ID != two.SessionID {
		t.Fatalf("sessions after delete = %+v", ss)
	}
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandClearSessions, nil), nil); err != nil {
		t.Fatal(err)
	}
	if ss := listSessions(t, rs.c); len(ss) != 0 {
		t.Fatalf("sessions after clear = %+v", ss)
	}
	files, _ := filepath.Glob(filepath.Join(state, "agentls", "sessions", "*", "*.json"))
	if len(files) != 0 {
		t.Fatalf("session files left: %v", files)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Plugin-less clients continue the latest session through a code action.
func TestSessionContinueCodeAction(t *testing.T) {
	rs := newRunSession(t, func(*llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("ok") }, runOpts{})
	u := rs.uri("a.txt")
	if err := rs.c.DidOpen(lsptest.Context(t), u, "plaintext", 1, "text\n"); err != nil {
		t.Fatal(err)
	}
	actions := func() []protocol.CodeAction {
		var out []protocol.CodeAction
		if err := rs.c.Call(lsptest.Context(t), protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, a := range actions() {
		if strings.HasPrefix(a.Title, "Agent: Continue") {
			t.Fatalf("continue offered with no session: %+v", a)
		}
	}
	res := runIn(t, rs, lspserver.RunArgs{Prompt: "Tidy the notes"})
	rs.events(t, res.RunID)
	var cont *protocol.CodeAction
	for _, a := range actions() {
		if strings.HasPrefix(a.Title, "Agent: Continue") {
			cont = &a
		}
	}
	if cont == nil || !strings.Contains(cont.Title, "Tidy the notes") || cont.Command.Command != lspserver.CommandRun {
		t.Fatalf("continue action = %+v", cont)
	}
	raw, _ := json.Marshal(cont.Command.Arguments[0])
	var args lspserver.RunArgs
	if err := json.Unmarshal(raw, &args); err != nil || args.SessionID != res.SessionID {
		t.Fatalf("continue action arguments %s: %v", raw, err)
	}
}

// A follow-up is told what the user accepted and how they changed the
// file afterwards (a diff against what the agent last knew).
func TestSessionFollowupSeesUserChanges(t *testing.T) {
	ms := &sessionScript{}
	rs := newRunSession(t, ms.script, runOpts{})
	e := editorFor(rs.session, text.UTF16)
	u := e.open(t, "demo.go", demoBase)
	first := runIn(t, rs, lspserver.RunArgs{Prompt: "Bump the return values.", URI: string(u)})
	rs.events(t, first.RunID)
	if res := e.accept(t, reviewArgs{}); !res.Applied {
		t.Fatalf("accept = %+v", res)
	}
	cur := e.text(t, u)
	at := strings.Index(cur, "func b()")
	e.typeAt(t, u, at, at, "// b is the user's.\n")

	second := runIn(t, rs, lspserver.RunArgs{Prompt: "Anything else?", SessionID: first.SessionID})
	rs.events(t, second.RunID)
	last := ms.request().LastUser()
	for _, want := range []string{"The user accepted 2 hunks of your change to demo.go", "The user changed demo.go since you last saw it", "+// b is the user's."} {
		if !strings.Contains(last, want) {
			t.Errorf("follow-up lacks %q:\n%s", want, last)
		}
	}
	if strings.Contains(last, "-\treturn 1\n") {
		t.Errorf("the accepted change is reported as the user's:\n%s", last)
	}
}

// Two servers hold the same restored session: a proposal accepted in one
// is not brought back by the other's next save (merge-on-write), and the
// other drops it from review too.
func TestSessionTwoServersSameSession(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "demo.go"), demoBase)
	ms := &sessionScript{}
	a := stateSession(t, ms.script, state, root)
	first := runIn(t, a, lspserver.RunArgs{Prompt: "Bump the return values."})
	a.events(t, first.RunID)

	b := stateSession(t, ms.script, state, root)
	eb := editorFor(b.session, text.UTF16)
	if ps := eb.proposals(t, ""); len(ps) != 1 {
		t.Fatalf("second server restored %+v", ps)
	}
	ea := editorFor(a.session, text.UTF16)
	ea.openOnEdit = true
	if res := ea.accept(t, reviewArgs{}); !res.Applied {
		t.Fatalf("accept in the first server = %+v", res)
	}

	follow := runIn(t, b, lspserver.RunArgs{Prompt: "Anything else?", SessionID: first.SessionID})
	b.events(t, follow.RunID)
	if ps := eb.proposals(t, ""); len(ps) != 0 {
		t.Fatalf("the second server still offers a change accepted in the first: %+v", ps)
	}
	c := stateSession(t, ms.script, state, root)
	if ss := listSessions(t, c.c); len(ss) != 1 || ss[0].Pending != 0 || ss[0].Runs != 2 {
		t.Fatalf("sessions seen by a third server = %+v", ss)
	}
}
