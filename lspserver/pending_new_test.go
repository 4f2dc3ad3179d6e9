package lspserver_test

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

const (
	cartTests    = "def test_total():\n    assert Cart().total == 0\n"
	cartTestsToo = cartTests + "\n\ndef test_empty():\n    assert not Cart().items\n"
)

// pendingNewScript: run 1 ("Write ...") creates test_cart.py; run 2
// ("Also ...") reads it, then (after gate, when set, is closed) writes a
// version with one more test. It keeps run 2's tool results.
type pendingNewScript struct {
	mu          sync.Mutex
	read, wrote string
	note        string        // the follow-up's task message
	readDone    chan struct{} // closed once run 2 has its read result
	gate        chan struct{} // run 2 writes once this is closed (nil: at once)
	once        sync.Once
}

func (s *pendingNewScript) script(req *llmtest.ChatRequest) llmtest.Reply {
	if strings.HasPrefix(lastTask(req), "Write") {
		if !req.HasToolResult("w1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: callArgs(map[string]any{"path": "test_cart.py", "content": cartTests})})
		}
		return llmtest.Text("Wrote test_cart.py.")
	}
	switch {
	case !req.HasToolResult("r2"):
		s.mu.Lock()
		s.note = req.LastUser()
		s.mu.Unlock()
		return llmtest.ToolCalls(llmtest.Call{ID: "r2", Name: "read_file", Args: callArgs(map[string]any{"path": "test_cart.py"})})
	case !req.HasToolResult("w2"):
		res, _ := req.ToolResult("r2")
		s.mu.Lock()
		s.read = res
		s.mu.Unlock()
		s.once.Do(func() { close(s.readDone) })
		if s.gate != nil {
			select {
			case <-s.gate:
			case <-time.After(testwait.Limit):
				return llmtest.Text("the test never opened the gate")
			}
		}
		return llmtest.ToolCalls(llmtest.Call{ID: "w2", Name: "write_file", Args: callArgs(map[string]any{"path": "test_cart.py", "content": cartTestsToo})})
	}
	res, _ := req.ToolResult("w2")
	s.mu.Lock()
	s.wrote = res
	s.mu.Unlock()
	return llmtest.Text("Added the empty cart test.")
}

func (s *pendingNewScript) results() (read, wrote string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read, s.wrote
}

// TestFollowupChangesPendingNewFile: run 1 of a session proposes a new
// file (nothing on disk); the follow-up run reads it (it sees the proposed
// text, not "file not found") and writes its own version. The follow-up's
// new file replaces run 1's in review: run 1's is conflicted for good,
// naming the follow-up's change, so accepting everything creates the file
// once, with the follow-up's text; accepting run 1's alone is refused
// with that reason. When the user accepts run 1's file while the
// follow-up is working (after its read), the follow-up's write is an
// ordinary change of that file: no conflict, and accepting it lands its
// text. The same holds when the user opened the path (an empty buffer)
// before the follow-up.
func TestFollowupChangesPendingNewFile(t *testing.T) {
	for _, order := range []string{"accept all", "run 1 first", "run 1 during the follow-up", "open empty buffer"} {
		t.Run(order, func(t *testing.T) {
			ms := &pendingNewScript{readDone: make(chan struct{})}
			if order == "run 1 during the follow-up" {
				ms.gate = make(chan struct{})
			}
			rs := newRunSession(t, ms.script, runOpts{})
			e := editorFor(rs.session, text.UTF16)
			e.openOnEdit = true // as VS Code: applying a new file's edit opens it
			u := e.uri("test_cart.py")

			first := runIn(t, rs, lspserver.RunArgs{Prompt: "Write tests for the cart."})
			rs.events(t, first.RunID)
			ps := e.proposals(t, "")
			if len(ps) != 1 || !ps[0].Created || ps[0].Status != "pending" || ps[0].ProposedText != cartTests {
				t.Fatalf("run 1's proposals = %+v", ps)
			}
			run1Hunk := ps[0].Hunks[0].ID
			if order == "open empty buffer" {
				// The user opens the path to look at the new file, as
				// Neovim shows an empty buffer: one line ending.
				e.mu.Lock()
				e.docs[u] = &editorDoc{version: 1, text: "\n"}
				e.mu.Unlock()
				if err := e.c.DidOpen(lsptest.Context(t), u, "python", 1, "\n"); err != nil {
					t.Fatal(err)
				}
				if _, err := e.c.Document(lsptest.Context(t), u); err != nil {
					t.Fatal(err)
				}
			}

			second := runIn(t, rs, lspserver.RunArgs{Prompt: "Also test the empty cart.", SessionID: first.SessionID})
			if ms.gate != nil {
				select {
				case <-ms.readDone:
				case <-time.After(testwait.Limit):
					t.Fatal("the follow-up never read the file")
				}
				if res := e.accept(t, reviewArgs{RunID: first.RunID}); !res.Applied || len(res.AppliedHunks) != 1 {
					t.Fatalf("accept run 1 during the follow-up = %+v", res)
				}
				if got := e.text(t, u); got != cartTests {
					t.Fatalf("after accepting run 1: %q", got)
				}
				close(ms.gate)
			}
			if evs := rs.events(t, second.RunID); evs[len(evs)-1].Kind != "finished" {
				t.Fatalf("follow-up ended with %+v", evs[len(evs)-1])
			}
			read, wrote := ms.results()
			ms.mu.Lock()
			note := ms.note
			ms.mu.Unlock()
			if !strings.Contains(note, "test_cart.py is still awaiting review") || !strings.Contains(note, "reading it shows the text you proposed") {
				t.Fatalf("the follow-up's note on the pending new file: %q", note)
			}
			if !strings.Contains(read, "assert Cart().total == 0") || !strings.Contains(read, "does not exist yet") || !strings.Contains(read, first.RunID) || strings.Contains(read, "not found") {
				t.Fatalf("the follow-up's read of the pending new file: %q", read)
			}
			if !strings.HasPrefix(wrote, "Replaced") || !strings.Contains(wrote, "test_empty") {
				t.Fatalf("the follow-up's write: %q", wrote)
			}

			if ms.gate != nil {
				// Run 1's file landed before the follow-up wrote: the
				// follow-up changes it like any file it read.
				ps := e.proposals(t, "")
				if len(ps) != 1 || ps[0].RunID != second.RunID || ps[0].Created || ps[0].Status != "pending" || ps[0].ProposedText != cartTestsToo {
					t.Fatalf("proposals after the follow-up = %+v", ps)
				}
				if res := e.accept(t, reviewArgs{}); !res.Applied || len(res.Conflicts) != 0 {
					t.Fatalf("accept the follow-up = %+v", res)
				}
				if got := e.text(t, u); got != cartTestsToo {
					t.Fatalf("test_cart.py = %q, want exactly %q", got, cartTestsToo)
				}
				return
			}
			if !strings.Contains(wrote, "replaces the one your earlier run "+first.RunID+" proposed") {
				t.Fatalf("the follow-up's write does not say it replaces run 1's file: %q", wrote)
			}
			ps = e.proposals(t, "")
			if len(ps) != 2 {
				t.Fatalf("proposals after the follow-up = %+v", ps)
			}
			var old, neu lspserver.ProposalInfo
			for _, p := range ps {
				if p.RunID == first.RunID {
					old = p
				} else {
					neu = p
				}
			}
			// In the open empty buffer, the follow-up's file is a change of
			// that buffer; else a new file.
			if neu.RunID != second.RunID || neu.Created != (order != "open empty buffer") || neu.Status != "pending" || neu.ProposedText != cartTestsToo {
				t.Fatalf("the follow-up's proposal = %+v", neu)
			}
			h := old.Hunks[0]
			if old.Status != "conflicted" || h.ID != run1Hunk || h.Status != "conflicted" || h.SupersededBy != neu.Hunks[0].ID || !strings.Contains(h.Reason, "replaced by change "+neu.Hunks[0].ID) {
				t.Fatalf("run 1's proposal after the follow-up = %+v", old)
			}

			if order == "run 1 first" {
				res := e.accept(t, reviewArgs{RunID: first.RunID})
				if res.Applied || len(res.AppliedHunks) != 0 {
					t.Fatalf("run 1's replaced file was applied: %+v", res)
				}
				if len(res.Conflicts) != 1 || !strings.Contains(res.Conflicts[0].Reason, "replaced by change") {
					t.Fatalf("accepting run 1's replaced file = %+v, want a conflict saying it was replaced", res)
				}
			}
			// Everything the follow-up proposed, nothing of run 1's (in the
			// empty buffer the follow-up's change may be more than one
			// hunk: the buffer's line ending is kept as a blank line).
			res := e.accept(t, reviewArgs{})
			var neuIDs []string
			for _, h := range neu.Hunks {
				neuIDs = append(neuIDs, h.ID)
			}
			if !res.Applied || !slices.Equal(res.AppliedHunks, neuIDs) {
				t.Fatalf("accept all = %+v, want exactly %v applied", res, neuIDs)
			}
			if got := e.text(t, u); got != cartTestsToo {
				t.Fatalf("test_cart.py = %q, want exactly %q (once, the follow-up's)", got, cartTestsToo)
			}
			// Run 1's replaced file stays listed, conflicted, until
			// rejected; it never applies.
			if res := e.accept(t, reviewArgs{}); res.Applied || len(res.AppliedHunks) != 0 {
				t.Fatalf("a second accept all applied %+v", res)
			}
			if n := e.reject(t, reviewArgs{RunID: first.RunID}); n != 1 {
				t.Fatalf("rejected %d of run 1's hunks", n)
			}
			if left := e.proposals(t, ""); len(left) != 0 {
				t.Fatalf("left %+v", left)
			}
			if got := e.text(t, u); got != cartTestsToo {
				t.Fatalf("test_cart.py after rejecting run 1's = %q", got)
			}
		})
	}
}

// TestFollowupPendingNewFileRestored: after a restart, the follow-up's new
// file still replaces run 1's (a superseded proposal is saved as its
// original change; the restore must not make it pending again), so accept
// all creates the file once, with the follow-up's text.
func TestFollowupPendingNewFileRestored(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	ms := &pendingNewScript{readDone: make(chan struct{})}
	a := stateSession(t, ms.script, state, root)
	first := runIn(t, a, lspserver.RunArgs{Prompt: "Write tests for the cart."})
	a.events(t, first.RunID)
	second := runIn(t, a, lspserver.RunArgs{Prompt: "Also test the empty cart.", SessionID: first.SessionID})
	a.events(t, second.RunID)

	b := stateSession(t, ms.script, state, root)
	if ss := listSessions(t, b.c); len(ss) != 1 || ss[0].ID != first.SessionID {
		t.Fatalf("sessions after the restart = %+v", ss)
	}
	e := editorFor(b.session, text.UTF16)
	e.openOnEdit = true
	ps := e.proposals(t, "")
	if len(ps) != 2 {
		t.Fatalf("restored proposals = %+v", ps)
	}
	var old, neu lspserver.ProposalInfo
	for _, p := range ps {
		if p.RunID == first.RunID {
			old = p
		} else {
			neu = p
		}
	}
	if neu.RunID != second.RunID || neu.Status != "pending" || neu.ProposedText != cartTestsToo ||
		old.Status != "conflicted" || len(old.Hunks) != 1 || old.Hunks[0].SupersededBy != neu.Hunks[0].ID {
		t.Fatalf("restored: run 1's %+v, the follow-up's %+v", old, neu)
	}
	if res := e.accept(t, reviewArgs{}); !res.Applied || len(res.AppliedHunks) != 1 || res.AppliedHunks[0] != neu.Hunks[0].ID {
		t.Fatalf("accept all after the restart = %+v", res)
	}
	if got := e.text(t, uri.File(filepath.Join(root, "test_cart.py"))); got != cartTestsToo {
		t.Fatalf("test_cart.py = %q, want exactly %q", got, cartTestsToo)
	}
}
