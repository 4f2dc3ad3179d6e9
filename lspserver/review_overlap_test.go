package lspserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// These tests hold the contract of docs/protocol.md "Proposals that
// overlap, and new files" through the real server and the real model
// client: two runs of the same prompt, a new file, insertions found by
// line, and plans readable whole.

const calcGo = "package calc\n\nfunc a() int { return 1 }\n\nfunc b() int { return 2 }\n"

const helperBlock = "// helper doubles x.\nfunc helper(x int) int {\n\treturn 2 * x\n}\n\n"

// addHelper is a model that reads calc.go and inserts helperBlock.
func addHelper(req *llmtest.ChatRequest) llmtest.Reply {
	switch {
	case !req.HasToolResult("r1"):
		return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "calc.go"})})
	case !req.HasToolResult("e1"):
		return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{
			"path": "calc.go", "old_string": "func b", "new_string": helperBlock + "func b"})})
	}
	return llmtest.Text("Added a helper.")
}

// appliedResult is agentls.accept's result with the hunks it applied.
type appliedResult struct {
	acceptResult
	AppliedHunks []string `json:"appliedHunks"`
}

// TestTwoRunsSameBlockAcceptedInAnyOrder: the same prompt run twice
// proposes the same block twice; whatever is accepted, in whatever order,
// the block lands once, the other run's hunk is reported and listed as
// superseded (naming the accepted hunk), and no later accept applies it.
func TestTwoRunsSameBlockAcceptedInAnyOrder(t *testing.T) {
	orders := map[string][]func(run1, run2 string, h1, h2 string) reviewArgs{
		"file":             {func(_, _, _, _ string) reviewArgs { return reviewArgs{URI: "FILE"} }},
		"all":              {func(_, _, _, _ string) reviewArgs { return reviewArgs{} }},
		"run1 then run2":   {func(r1, _, _, _ string) reviewArgs { return reviewArgs{RunID: r1} }, func(_, r2, _, _ string) reviewArgs { return reviewArgs{RunID: r2} }},
		"run2 then run1":   {func(_, r2, _, _ string) reviewArgs { return reviewArgs{RunID: r2} }, func(r1, _, _, _ string) reviewArgs { return reviewArgs{RunID: r1} }},
		"hunk2 then file":  {func(_, _, _, h2 string) reviewArgs { return reviewArgs{HunkID: h2} }, func(_, _, _, _ string) reviewArgs { return reviewArgs{URI: "FILE"} }},
		"hunk1 then hunk2": {func(_, _, h1, _ string) reviewArgs { return reviewArgs{HunkID: h1} }, func(_, _, _, h2 string) reviewArgs { return reviewArgs{HunkID: h2} }},
	}
	for name, steps := range orders {
		t.Run(name, func(t *testing.T) {
			rs := newRunSession(t, addHelper, runOpts{})
			e := editorFor(rs.session, text.UTF16)
			u := e.open(t, "calc.go", calcGo)
			var runs [2]string
			for i := range runs {
				runs[i] = rs.start(t, lspserver.RunArgs{Prompt: "Add a helper.", URI: string(u)})
				if fin := rs.events(t, runs[i]); fin[len(fin)-1].Kind != "finished" {
					t.Fatalf("run %d: %v", i, kinds(fin))
				}
			}
			ps := e.proposals(t, u)
			if len(ps) != 2 || len(ps[0].Hunks) != 1 || len(ps[1].Hunks) != 1 || ps[0].Hunks[0].NewText != ps[1].Hunks[0].NewText {
				t.Fatalf("proposals of the two runs = %+v", ps)
			}
			h1, h2 := ps[0].Hunks[0].ID, ps[1].Hunks[0].ID
			applied := map[string]bool{}
			for i, step := range steps {
				a := step(runs[0], runs[1], h1, h2)
				if a.URI == "FILE" {
					a.URI = string(u)
				}
				var res appliedResult
				if err := e.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandAccept, a), &res); err != nil {
					t.Fatal(err)
				}
				// Honest: every hunk applied is named, every other one
				// selected is a conflict, and nothing is applied twice.
				for _, id := range res.AppliedHunks {
					if applied[id] {
						t.Fatalf("step %d: %s applied a second time", i, id)
					}
					applied[id] = true
				}
				if res.Applied != (len(res.AppliedHunks) > 0) {
					t.Fatalf("step %d: %+v", i, res)
				}
			}
			want := strings.Replace(calcGo, "func b", helperBlock+"func b", 1)
			if got := e.text(t, u); got != want {
				t.Fatalf("text after the accepts:\n%s\nwant the block once:\n%s", got, want)
			}
			if len(applied) != 1 {
				t.Fatalf("applied hunks %v, want one", applied)
			}
			left := e.proposals(t, u)
			if len(left) != 1 || len(left[0].Hunks) != 1 {
				t.Fatalf("left = %+v", left)
			}
			h := left[0].Hunks[0]
			if h.Status != "conflicted" || !applied[h.SupersededBy] || !strings.Contains(h.Reason, h.SupersededBy) {
				t.Fatalf("the other run's hunk = %+v, want conflicted, superseded by the applied one", h)
			}
			res := e.accept(t, reviewArgs{})
			if res.Applied || len(res.Conflicts) != 1 || res.Conflicts[0].HunkID != h.ID {
				t.Fatalf("accepting again = %+v", res)
			}
			if got := e.text(t, u); got != want {
				t.Fatalf("accepting again changed the text:\n%s", got)
			}
			// Its code actions offer only Reject, its lens says why.
			for _, a := range e.codeActions(t, u, protocol.Range{Start: protocol.Position{Line: h.Range.Start.Line}, End: protocol.Position{Line: h.Range.Start.Line}}) {
				if strings.HasPrefix(a.Title, "Agent: Accept change") {
					t.Fatalf("a superseded hunk offers %q", a.Title)
				}
			}
			if n := e.reject(t, reviewArgs{HunkID: h.ID}); n != 1 || len(e.proposals(t, "")) != 0 {
				t.Fatalf("reject %d, left %+v", n, e.proposals(t, ""))
			}
		})
	}
}

// TestInsertionCodeActionsAtAnyColumn: an insertion hunk's Accept and
// Reject are offered for any range on the line it inserts before (a
// cursor mid-line, eglot's request over the diagnostic range under point),
// first in the list with Accept preferred, and not for the lines around.
func TestInsertionCodeActionsAtAnyColumn(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	base := "package p\n\nfunc f() {\n\tx := compute(1, 2, 3) // the sum of the three\n}\n"
	u := e.open(t, "p.go", base)
	e.stage("run1", "p.go", base, strings.Replace(base, "\tx :=", "\t// compute adds them.\n\tx :=", 1), false)
	h := e.hunks(t, u)
	if len(h) != 1 || h[0].Range.Start != h[0].Range.End || h[0].Range.Start.Line != 3 {
		t.Fatalf("hunks = %+v, want one insertion at line 3", h)
	}
	at := func(l1, c1, l2, c2 uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
	}
	for _, r := range []protocol.Range{at(3, 0, 3, 0), at(3, 7, 3, 7), at(3, 4, 3, 40), at(2, 3, 3, 2), at(3, 30, 4, 1)} {
		acts := e.codeActions(t, u, r)
		if len(acts) < 2 || acts[0].Title != "Agent: Accept change" || acts[0].IsPreferred == nil || !*acts[0].IsPreferred ||
			acts[1].Title != "Agent: Reject change" || commandArgs(t, acts[0].Command).HunkID != h[0].ID {
			t.Fatalf("code actions over %+v = %+v, want Accept (preferred) then Reject first", r, titles(acts))
		}
		for _, a := range acts[1:] {
			if a.IsPreferred != nil && *a.IsPreferred {
				t.Fatalf("%q is preferred too", a.Title)
			}
		}
	}
	for _, r := range []protocol.Range{at(2, 5, 2, 5), at(4, 0, 4, 1), at(1, 0, 3, 0)} {
		for _, a := range e.codeActions(t, u, r) {
			if strings.HasPrefix(a.Title, "Agent: Accept change") || strings.HasPrefix(a.Title, "Agent: Reject change") {
				t.Fatalf("code actions over %+v offer %q", r, a.Title)
			}
		}
	}
}

// TestNewFileProposalThroughTheServer: a proposed new file is listed with
// "created": true, is pending in a buffer opened before the file exists
// (empty, or one line ending as Neovim sends an empty buffer) and lands
// byte-exact, with or without a final newline.
func TestNewFileProposalThroughTheServer(t *testing.T) {
	for _, tc := range []struct{ buffer, content string }{
		{"", "def test_total():\n    assert True\n"},
		{"\n", "def test_total():\n    assert True\n"},
		{"\n", "no final newline"},
		{"\r\n", "a\r\nb\r\n"},
	} {
		t.Run(fmt.Sprintf("%q/%q", tc.buffer, tc.content), func(t *testing.T) {
			e := newReviewSession(t, reviewOpts{})
			u := e.uri("test_cart.py")
			e.stage("run1", "test_cart.py", "", tc.content, true)
			ps := e.proposals(t, "")
			if len(ps) != 1 || ps[0].URI != u || !ps[0].Created || ps[0].Status != "pending" || ps[0].ProposedText != tc.content {
				t.Fatalf("agentls/proposals = %+v", ps)
			}
			var raw json.RawMessage
			if err := e.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &raw); err != nil || !strings.Contains(string(raw), `"created":true`) {
				t.Fatalf("wire: %s %v", raw, err)
			}
			// The user opens the path before the file exists.
			e.mu.Lock()
			e.docs[u] = &editorDoc{version: 1, text: tc.buffer}
			e.mu.Unlock()
			if err := e.c.DidOpen(lsptest.Context(t), u, "python", 1, tc.buffer); err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.Document(lsptest.Context(t), u); err != nil {
				t.Fatal(err)
			}
			ps = e.proposals(t, u)
			if len(ps) != 1 || ps[0].Status != "pending" || ps[0].ProposedText != tc.content {
				t.Fatalf("proposal in the open empty buffer = %+v", ps)
			}
			res := e.accept(t, reviewArgs{})
			if !res.Applied {
				t.Fatalf("accept = %+v", res)
			}
			if got := e.text(t, u); got != tc.content {
				t.Fatalf("buffer %q, want exactly %q", got, tc.content)
			}
			if left := e.proposals(t, ""); len(left) != 0 {
				t.Fatalf("left %+v", left)
			}
		})
	}
}

// TestPlanReadableWhole: a plan-mode run's whole plan is written as a
// Markdown file under the state directory, shown with window/showDocument
// (without focus) to a client that supports it, named by the end-of-run
// message and the finished event; a client that shows answers itself
// (experimental.agentls.answerViews) is not sent the document.
func TestPlanReadableWhole(t *testing.T) {
	plan := "Plan:\n1. Read calc.go.\n2. Add helper(x) = 2x above b.\n3. Nothing else."
	for _, views := range []bool{false, true} {
		t.Run(fmt.Sprintf("answerViews=%v", views), func(t *testing.T) {
			caps := lsptest.DefaultCapabilities()
			caps.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
			if views {
				caps.Experimental = protocol.LSPAny(`{"agentls":{"answerViews":true}}`)
			}
			state := t.TempDir()
			rs := newRunSession(t, llmtest.Always(llmtest.Text(plan)), runOpts{
				init: lsptest.InitOptions{Capabilities: &caps}, runOpts: lspserver.RunOptions{StateDir: state}})
			shown := make(chan protocol.ShowDocumentParams, 1)
			rs.c.Handle(protocol.MethodWindowShowDocument, func(m lsptest.Message) (any, *lsptest.Error) {
				var p protocol.ShowDocumentParams
				if err := m.DecodeParams(&p); err != nil {
					return nil, &lsptest.Error{Code: lsptest.CodeInvalidParams, Message: err.Error()}
				}
				shown <- p
				return protocol.ShowDocumentResult{Success: true}, nil
			})
			id := rs.start(t, lspserver.RunArgs{Prompt: "Plan a helper.", Mode: lspserver.ModePlan})
			evs := rs.events(t, id)
			fin := evs[len(evs)-1]
			path := filepath.Join(state, "answers", id+".md")
			if fin.Kind != "finished" || fin.AnswerURI != string(uri.File(path)) {
				t.Fatalf("finished event %+v, want answerUri %s", fin, uri.File(path))
			}
			doc, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(doc), plan) || !strings.Contains(string(doc), "“Agent: Approve plan”") || strings.Contains(string(doc), lspserver.CommandApprovePlan) {
				t.Fatalf("answer file %q: %v", doc, err)
			}
			if msg := rs.showMessage(t, "finished"); !strings.Contains(msg.Message, path) {
				t.Fatalf("end-of-run message %q does not name %s", msg.Message, path)
			}
			if views {
				// The run logs its end after it would have shown the plan.
				waitLog(t, rs.session, "msg=\"run ended\" run="+id)
				select {
				case p := <-shown:
					t.Fatalf("showDocument sent to a client with its own answer views: %+v", p)
				default:
				}
				return
			}
			select {
			case p := <-shown:
				if p.URI != uri.File(path) || p.TakeFocus == nil || *p.TakeFocus || (p.External != nil && *p.External) {
					t.Fatalf("showDocument %+v", p)
				}
			case <-lsptest.Context(t).Done():
				t.Fatal("the plan was never shown")
			}
		})
	}
}

// waitLog waits (bounded) until the server's log holds fragment.
func waitLog(t *testing.T, s *session, fragment string) {
	t.Helper()
	deadline := time.Now().Add(testwait.Limit)
	for !strings.Contains(s.logs.String(), fragment) {
		if time.Now().After(deadline) {
			t.Fatalf("the server never logged %q", fragment)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWriteIntoOpenEmptyBuffer: the user opens a path that does not exist
// yet (an empty buffer, or one line ending as Neovim sends it) and asks
// the agent to fill it: write_file writes it without a read first (there
// is nothing in it to lose), instead of "already exists and you have not
// read it", and accepting lands exactly the content.
func TestWriteIntoOpenEmptyBuffer(t *testing.T) {
	for _, buffer := range []string{"", "\n"} {
		t.Run(fmt.Sprintf("%q", buffer), func(t *testing.T) {
			const content = "def test_total():\n    assert True\n"
			var result string
			script := func(req *llmtest.ChatRequest) llmtest.Reply {
				if !req.HasToolResult("w1") {
					return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: callArgs(map[string]any{"path": "test_cart.py", "content": content})})
				}
				result, _ = req.ToolResult("w1")
				return llmtest.Text("Wrote the tests.")
			}
			rs := newRunSession(t, script, runOpts{})
			e := editorFor(rs.session, text.UTF16)
			u := e.uri("test_cart.py")
			e.mu.Lock()
			e.docs[u] = &editorDoc{version: 1, text: buffer}
			e.mu.Unlock()
			if err := e.c.DidOpen(lsptest.Context(t), u, "python", 1, buffer); err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.Document(lsptest.Context(t), u); err != nil {
				t.Fatal(err)
			}
			id := rs.start(t, lspserver.RunArgs{Prompt: "Write tests in this file.", URI: string(u)})
			rs.events(t, id)
			if !strings.HasPrefix(result, "Created") && !strings.HasPrefix(result, "Replaced") {
				t.Fatalf("write_file into the empty buffer: %s", result)
			}
			if res := e.accept(t, reviewArgs{}); !res.Applied {
				t.Fatalf("accept = %+v", res)
			}
			if got := e.text(t, u); got != content {
				t.Fatalf("buffer %q, want exactly %q", got, content)
			}
		})
	}
}
