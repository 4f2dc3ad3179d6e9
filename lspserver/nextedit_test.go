package lspserver_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// Next edits through the real protocol: the user's edit settles, the
// server asks the completion model (llmtest, chat with one edit_file
// tool), and the answer is a next-edit proposal in agentls/proposals,
// accepted through agentls.accept and workspace/applyEdit.

const renameBefore = "def f(a):\n    return a + 1\n"

// isNextEdit tells a next-edit request from an agent run's: one tool,
// edit_file.
func isNextEdit(req *llmtest.ChatRequest) bool {
	return len(req.Tools) == 1 && req.Tools[0].Function.Name == "edit_file"
}

// fileNow is the file text a next-edit request shows.
func fileNow(req *llmtest.ChatRequest) string {
	u := req.Messages[len(req.Messages)-1].Content
	if i := strings.Index(u, "The file now"); i >= 0 {
		return u[i:]
	}
	return ""
}

// renameModel answers next-edit requests: while the file still uses the
// old parameter, an edit_file call renaming the use; else no edit. Other
// requests go to agent.
func renameModel(agent llmtest.Script) llmtest.Script {
	return func(req *llmtest.ChatRequest) llmtest.Reply {
		if !isNextEdit(req) {
			return agent(req)
		}
		if strings.Contains(fileNow(req), "return a + 1") && strings.Contains(fileNow(req), "def f(b)") {
			return llmtest.ToolCalls(llmtest.Call{ID: "n1", Name: "edit_file",
				Args: callArgs(map[string]any{"path": "f.py", "old_string": "return a + 1", "new_string": "return b + 1"})})
		}
		return llmtest.Text("No edit follows.")
	}
}

func nextEditSession(t *testing.T, script llmtest.Script, env map[string]string) (*runSession, *fakeEditor) {
	t.Helper()
	rs := newRunSession(t, script, runOpts{
		settings: map[string]any{"completion": map[string]any{"nextEdit": true, "nextEditDelayMs": 50}},
		env:      env,
	})
	return rs, editorFor(rs.session, text.UTF16)
}

// nextEdits lists u's next-edit proposals.
func nextEdits(t *testing.T, e *fakeEditor, u uri.URI) []lspserver.ProposalInfo {
	t.Helper()
	var out []lspserver.ProposalInfo
	for _, p := range e.proposals(t, u) {
		if p.Source == "next-edit" {
			out = append(out, p)
		}
	}
	return out
}

// awaitNextEdit waits for a next-edit proposal for u.
func awaitNextEdit(t *testing.T, e *fakeEditor, u uri.URI) lspserver.ProposalInfo {
	t.Helper()
	deadline := time.Now().Add(testwait.Limit)
	for {
		if ps := nextEdits(t, e, u); len(ps) > 0 {
			return ps[0]
		}
		if time.Now().After(deadline) {
			t.Fatal("no next-edit proposal")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNextEditRename: a user's rename of a parameter brings a next-edit
// proposal for its use once the edit settles; the model got the edit as
// a diff, the file and the edit_file tool; accepting the proposal lands
// it in the buffer.
func TestNextEditRename(t *testing.T) {
	rs, e := nextEditSession(t, renameModel(llmtest.Always(llmtest.Text("done"))), nil)
	u := e.open(t, "f.py", renameBefore)
	start := time.Now()
	e.typeAt(t, u, len("def f("), len("def f(a"), "b")
	p := awaitNextEdit(t, e, u)
	t.Logf("next-edit proposal %v after the edit (delay 50 ms, instant model)", time.Since(start).Round(time.Millisecond))
	if len(p.Hunks) != 1 || p.Hunks[0].OldText != "    return a + 1\n" || p.Hunks[0].NewText != "    return b + 1\n" ||
		p.Hunks[0].Range.Start.Line != 1 || p.ProposedText != "def f(b):\n    return b + 1\n" {
		t.Fatalf("proposal = %+v", p)
	}
	var req *llmtest.ChatRequest
	for _, r := range rs.model.Requests() {
		if isNextEdit(&r.ChatRequest) {
			req = &r.ChatRequest
			break
		}
	}
	if req == nil {
		t.Fatal("no next-edit request")
	}
	user := req.Messages[len(req.Messages)-1].Content
	for _, want := range []string{"-def f(a):", "+def f(b):", "def f(b):\n    return a + 1\n"} {
		if !strings.Contains(user, want) {
			t.Errorf("the request lacks %q:\n%s", want, user)
		}
	}

	res := e.accept(t, reviewArgs{RunID: p.RunID})
	if !res.Applied {
		t.Fatalf("accept: %+v", res)
	}
	if got := e.text(t, u); got != "def f(b):\n    return b + 1\n" {
		t.Fatalf("buffer after accept = %q", got)
	}
	if ps := e.proposals(t, ""); len(ps) != 0 {
		t.Fatalf("proposals after accept: %+v", ps)
	}
}

// TestNextEditTold: a next-edit proposal is told as a next edit, never
// by its run id (next-edit-N, a run the user never started): the
// diagnostic, the hover, the code actions and the lens.
func TestNextEditTold(t *testing.T) {
	_, e := nextEditSession(t, renameModel(llmtest.Always(llmtest.Text("done"))), nil)
	u := e.open(t, "f.py", renameBefore)
	e.typeAt(t, u, len("def f("), len("def f(a"), "b")
	p := awaitNextEdit(t, e, u)

	pub := awaitDiagnostics(t, e.c, u, "the next edit's diagnostic", withCount(1))
	if got, want := pub.Diagnostics[0].Message, "Next edit suggests: return b + 1   (replacing: return a + 1)"; got != want {
		t.Errorf("diagnostic %q, want %q", got, want)
	}
	hover := e.hover(t, u, 1, 4)
	if !strings.HasPrefix(hover, "**agentls: next edit**\n") || strings.Contains(hover, p.RunID) ||
		!strings.Contains(hover, "*Agent: Accept next edit* / *Agent: Reject next edit*") {
		t.Errorf("hover:\n%s", hover)
	}
	var titles []string
	for _, a := range e.codeActions(t, u, protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1, Character: 3}}) {
		titles = append(titles, a.Title)
	}
	if len(titles) < 2 || titles[0] != "Agent: Accept next edit" || titles[1] != "Agent: Reject next edit" {
		t.Errorf("code actions %q", titles)
	}
	var lenses []string
	for _, l := range e.codeLens(t, u) {
		lenses = append(lenses, l.Command.Title)
	}
	if strings.Join(lenses, " | ") != "Accept next edit | Reject" {
		t.Errorf("lenses %q", lenses)
	}
}

// TestNextEditDroppedByOverlap: an edit elsewhere keeps the next-edit
// proposal (rebased); the user's edit of its lines drops it rather than
// leaving a conflict to review.
func TestNextEditDroppedByOverlap(t *testing.T) {
	_, e := nextEditSession(t, renameModel(llmtest.Always(llmtest.Text("done"))), nil)
	u := e.open(t, "f.py", renameBefore+"\nprint(1)\n")
	e.typeAt(t, u, len("def f("), len("def f(a"), "b")
	awaitNextEdit(t, e, u)

	cur := e.text(t, u)
	at := strings.Index(cur, "print(1)")
	e.typeAt(t, u, at+len("print("), at+len("print(1"), "2")
	if ps := nextEdits(t, e, u); len(ps) != 1 || ps[0].Status != "pending" || ps[0].Hunks[0].Range.Start.Line != 1 {
		t.Fatalf("after an edit elsewhere: %+v", ps)
	}
	cur = e.text(t, u)
	at = strings.Index(cur, "a + 1")
	e.typeAt(t, u, at+len("a + "), at+len("a + 1"), "2")
	if ps := e.proposals(t, u); len(ps) != 0 {
		t.Fatalf("after the user edited its line: %+v", ps)
	}
}

// TestNextEditTextAnswer: a model that answers with text, not an
// edit_file call, brings no proposal.
func TestNextEditTextAnswer(t *testing.T) {
	rs, e := nextEditSession(t, llmtest.Always(llmtest.Text("Looks good to me.")), nil)
	u := e.open(t, "f.py", renameBefore)
	e.typeAt(t, u, len("def f("), len("def f(a"), "b")
	waitLog(t, e.session, "next edit answered")
	if ps := e.proposals(t, ""); len(ps) != 0 {
		t.Fatalf("proposals after a text answer: %+v", ps)
	}
	if n := len(rs.model.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
}

// TestNextEditBadArgs: an edit_file call that does not apply brings no
// proposal, and says why in the log.
func TestNextEditBadArgs(t *testing.T) {
	_, e := nextEditSession(t, llmtest.Always(llmtest.ToolCalls(llmtest.Call{ID: "n1", Name: "edit_file",
		Args: callArgs(map[string]any{"path": "f.py", "old_string": "return zzz", "new_string": "return b"})})), nil)
	u := e.open(t, "f.py", renameBefore)
	e.typeAt(t, u, len("def f("), len("def f(a"), "b")
	waitLog(t, e.session, "not a usable edit")
	if ps := e.proposals(t, ""); len(ps) != 0 {
		t.Fatalf("proposals after an edit that does not apply: %+v", ps)
	}
}

// TestNextEditNotSaved: a session saved while a next-edit proposal is
// pending keeps the run's proposals only; a server started afterwards
// does not restore the suggestion.
func TestNextEditNotSaved(t *testing.T) {
	state := t.TempDir()
	agentScript := func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "demo.go"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "demo.go", "old_string": "return 2", "new_string": "return 22"})})
		}
		return llmtest.Text("done")
	}
	rs, e := nextEditSession(t, renameModel(agentScript), map[string]string{"XDG_STATE_HOME": state})
	writeFile(t, filepath.Join(rs.root, "demo.go"), demoBase)
	u := e.open(t, "f.py", renameBefore)
	e.typeAt(t, u, len("def f("), len("def f(a"), "b")
	awaitNextEdit(t, e, u)
	run := runIn(t, rs, lspserver.RunArgs{Prompt: "edit demo"})
	rs.events(t, run.RunID)
	if n := len(e.proposals(t, "")); n != 2 {
		t.Fatalf("%d proposals before the restart, want the run's and the next edit", n)
	}

	c := newRunSession(t, llmtest.Always(llmtest.Text("done")), runOpts{
		env:  map[string]string{"XDG_STATE_HOME": state},
		init: lsptest.InitOptions{Folders: []string{rs.root}},
	})
	props := editorFor(c.session, text.UTF16).proposals(t, "")
	if len(props) != 1 || filepath.Base(string(props[0].URI)) != "demo.go" || props[0].Source != "" {
		t.Fatalf("proposals restored = %+v", props)
	}
}

// TestNextEditNewerSettleAborts: a settle while the document's next-edit
// request is still out closes that request (the model sees the client go
// away) and the newer one's answer is the suggestion.
func TestNextEditNewerSettleAborts(t *testing.T) {
	h := llmtest.NewHang()
	var mu sync.Mutex
	first := true
	rename := renameModel(llmtest.Always(llmtest.Text("done")))
	_, e := nextEditSession(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if first {
			first = false
			return llmtest.Text("thinking").HangAfter(0, h)
		}
		return rename(req)
	}, nil)
	u := e.open(t, "f.py", renameBefore)
	e.typeAt(t, u, len("def f("), len("def f(a"), "b")
	ctx := lsptest.Context(t)
	select {
	case <-h.Started():
	case <-ctx.Done():
		t.Fatal("the first next-edit request never reached the model")
	}
	cur := e.text(t, u)
	e.typeAt(t, u, len(cur), len(cur), "\n")
	select {
	case <-h.Disconnected():
	case <-ctx.Done():
		t.Fatal("the older next-edit request was not closed by the newer settle")
	}
	p := awaitNextEdit(t, e, u)
	if p.ProposedText != "def f(b):\n    return b + 1\n\n" {
		t.Fatalf("proposal = %q", p.ProposedText)
	}
}

// TestModelsCompletionUsage: agentls/models shows what completions and
// next edits used, apart from agent runs, with the cost when the model's
// pricing applies to the completion model.
func TestModelsCompletionUsage(t *testing.T) {
	m := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if isNextEdit(req) {
			return renameModel(nil)(req).Usage(1000, 50)
		}
		return llmtest.Text("a + b")
	})
	rs := newRunSession(t, nil, runOpts{noModel: true, settings: map[string]any{
		"model":      map[string]any{"baseURL": m.URL(), "name": "test-model", "pricing": map[string]any{"inputPerMTok": 1, "outputPerMTok": 2}},
		"completion": map[string]any{"nextEdit": true, "nextEditDelayMs": 50},
	}, init: lsptest.InitOptions{Capabilities: inlineCaps(true)}})
	e := editorFor(rs.session, text.UTF16)
	u := e.open(t, "f.py", renameBefore)
	e.typeAt(t, u, len("def f("), len("def f(a"), "b")
	awaitNextEdit(t, e, u)
	if res := rs.inline(t, u, 1, 11, protocol.InlineCompletionTriggerKindInvoked); len(res.Items) != 1 {
		t.Fatalf("inline completion: %+v", res)
	}

	var models lspserver.ModelsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodModels, &struct{}{}, &models); err != nil {
		t.Fatal(err)
	}
	c := models.Completion
	if c == nil {
		t.Fatalf("agentls/models without completion usage: %+v", models)
	}
	if c.Model != "test-model" || c.Requests != 1 || c.ModelRequests != 2 || c.NextEdits != 1 || c.NextEditSuggestions != 1 ||
		c.PromptTokens <= 1000 || c.CompletionTokens <= 50 { // the next edit's reported usage plus the completion's (estimated when not reported)
		t.Fatalf("completion usage = %+v", *c)
	}
	if want := (float64(c.PromptTokens)*1 + float64(c.CompletionTokens)*2) / 1e6; c.CostUSD == nil || *c.CostUSD < want*0.999 || *c.CostUSD > want*1.001 {
		t.Fatalf("cost = %v, want %v", c.CostUSD, want)
	}
}
