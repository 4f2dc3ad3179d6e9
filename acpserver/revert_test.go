package acpserver_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/agent/revert"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// Changes allowed over ACP can be taken back later: each write records a
// revert snapshot (agent/revert) in the state directory that `agentls
// revert` and the LSP server's agentls.revert read.

const revertOrig = "# title\nhello\nlast\n"

// editAndCreate edits line 2 of a.txt and creates NEW.md.
func editAndCreate(answer string) llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(r.LastUser(), "what changed?") {
			return llmtest.Text("noted")
		}
		switch {
		case !r.HasToolResult("c1"):
			return call("c1", "read_file", `{"path":"a.txt"}`)
		case !r.HasToolResult("c2"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "c2", Name: "edit_file", Args: `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`},
				llmtest.Call{ID: "c3", Name: "write_file", Args: `{"path":"NEW.md","content":"new\n"}`})
		}
		return llmtest.Text(answer)
	}
}

// runIDOf is the run id a permission request's _meta names.
func runIDOf(t *testing.T, perms []acp.RequestPermissionRequest) string {
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

// updateTexts is the text of every tool_call_update's content.
func updateTexts(us []acp.SessionNotification) string {
	var b strings.Builder
	for _, u := range us {
		if tc := u.Update.ToolCallUpdate; tc != nil {
			b.WriteString(contentText(tc.Content))
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (h *harness) reverts() *revert.Store {
	return revert.NewStore(filepath.Join(h.state, "agentls", "reverts"))
}

// An allowed change, written by the client (fs/write_text_file, then
// saved) or by agentls (the confined write), is recorded; undoing the
// run's snapshot on disk as `agentls revert` does takes a.txt back,
// keeping the line the user changed since, and deletes the created file.
func TestRevertChangesAllowedOverACP(t *testing.T) {
	for _, byClient := range []bool{true, false} {
		name := map[bool]string{true: "fs_write_text_file", false: "confined_write"}[byClient]
		t.Run(name, func(t *testing.T) {
			h := start(t, editAndCreate("done"), harnessOpts{fs: byClient})
			h.write("a.txt", revertOrig)
			id := h.newSession()
			h.mustPrompt(id, "greet the world")
			_, perms := h.client.snapshot()
			runID := runIDOf(t, perms)
			if byClient {
				h.client.mu.Lock()
				writes := slices.Clone(h.client.writes)
				h.client.mu.Unlock()
				if len(writes) != 2 {
					t.Fatalf("%d fs/write_text_file calls, want 2", len(writes))
				}
				for _, w := range writes { // the editor saves its buffers
					if err := os.WriteFile(w.Path, []byte(w.Content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if h.read("a.txt") != "# title\nhello, world\nlast\n" || h.read("NEW.md") != "new\n" {
				t.Fatalf("not written: a.txt %q", h.read("a.txt"))
			}

			// The edit's tool call tells the user how to take the run back.
			us, _ := h.client.snapshot()
			if want := "To take run " + runID + " back: agentls revert --dir " + h.dir + " " + runID; !strings.Contains(updateTexts(us), want) {
				t.Errorf("the tool calls do not say %q:\n%s", want, updateTexts(us))
			}
			snap, err := h.reverts().Load(runID)
			if err != nil {
				t.Fatalf("no revert snapshot of run %s: %v", runID, err)
			}
			if snap.SessionID != string(id) || len(snap.Files) != 2 {
				t.Fatalf("snapshot: session %q (want %q), %d files", snap.SessionID, id, len(snap.Files))
			}
			for _, f := range snap.Files {
				switch filepath.Base(f.Path) {
				case "a.txt":
					if f.Before != revertOrig || f.After != "# title\nhello, world\nlast\n" || f.Created {
						t.Errorf("a.txt snapshot %+v", f)
					}
				case "NEW.md":
					if f.Before != "" || f.After != "new\n" || !f.Created {
						t.Errorf("NEW.md snapshot %+v", f)
					}
				default:
					t.Errorf("unexpected file %s", f.Path)
				}
			}

			h.write("a.txt", "# mine\nhello, world\nlast\n") // the user's edit on another line
			view := workspace.New(workspace.Options{Folders: []string{h.dir}})
			var results []revert.Result
			for _, f := range snap.Files {
				r, err := revert.UndoOnDisk(view, f)
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, r)
			}
			if got := h.read("a.txt"); got != "# mine\nhello\nlast\n" {
				t.Fatalf("a.txt after revert %q", got)
			}
			if _, err := os.Stat(filepath.Join(h.dir, "NEW.md")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("NEW.md survived the revert: %v", err)
			}
			if sum := revert.Summary(results); !strings.Contains(sum, "a.txt: reverted") || !strings.Contains(sum, "NEW.md: deleted") {
				t.Fatalf("summary:\n%s", sum)
			}
		})
	}
}

// Changes written without asking (mode apply) are recorded too. The run
// id is the snapshot's: the only one in the store.
func TestApplyModeOverACPRecordsRevert(t *testing.T) {
	h := start(t, editAndCreate("done"), harnessOpts{})
	h.write("a.txt", revertOrig)
	id := h.newSession()
	if _, err := h.conn.SetSessionMode(h.ctx(), acp.SetSessionModeRequest{SessionId: id, ModeId: "apply"}); err != nil {
		t.Fatal(err)
	}
	h.mustPrompt(id, "greet the world")
	if _, perms := h.client.snapshot(); len(perms) != 0 || h.read("a.txt") != "# title\nhello, world\nlast\n" {
		t.Fatalf("apply mode: %d permissions, a.txt %q", len(perms), h.read("a.txt"))
	}
	names, err := filepath.Glob(filepath.Join(h.state, "agentls", "reverts", "*.json"))
	if err != nil || len(names) != 1 {
		t.Fatalf("snapshots %v %v, want one", names, err)
	}
	snap, err := h.reverts().Load(strings.TrimSuffix(filepath.Base(names[0]), ".json"))
	if err != nil || snap.SessionID != string(id) || len(snap.Files) != 2 {
		t.Fatalf("snapshot %+v %v", snap, err)
	}
}

// A rejected change writes nothing and records nothing to revert: in a
// run with one change rejected (a.txt) and one allowed (NEW.md), the
// snapshot holds NEW.md alone.
func TestRejectedChangeRecordsNoRevert(t *testing.T) {
	h := start(t, editAndCreate("done"), harnessOpts{})
	h.write("a.txt", revertOrig)
	h.client.onPerm = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		if p.ToolCall.Title != nil && strings.Contains(*p.ToolCall.Title, "a.txt") {
			return allow(optionID(p, acp.PermissionOptionKindRejectOnce))
		}
		return allow(optionID(p, acp.PermissionOptionKindAllowOnce))
	}
	h.mustPrompt(h.newSession(), "greet the world")
	_, perms := h.client.snapshot()
	runID := runIDOf(t, perms)
	if len(perms) != 2 || h.read("a.txt") != revertOrig || h.read("NEW.md") != "new\n" {
		t.Fatalf("%d permissions, a.txt %q", len(perms), h.read("a.txt"))
	}
	snap, err := h.reverts().Load(runID)
	if err != nil {
		t.Fatalf("no snapshot of the allowed change: %v", err)
	}
	if len(snap.Files) != 1 || filepath.Base(snap.Files[0].Path) != "NEW.md" {
		t.Fatalf("snapshot files %+v, want NEW.md alone (a.txt was rejected)", snap.Files)
	}
}

// The LSP server reverts a run whose changes were allowed over ACP (the
// same snapshot store and the same session): agentls.revert sends one
// workspace/applyEdit that takes a.txt back, keeping the user's line, and
// deletes NEW.md; the session's next prompt over ACP is told.
func TestLSPRevertsRunAllowedOverACP(t *testing.T) {
	h := start(t, editAndCreate("done"), harnessOpts{})
	h.write("a.txt", revertOrig)
	id := h.newSession()
	h.mustPrompt(id, "greet the world")
	_, perms := h.client.snapshot()
	runID := runIDOf(t, perms)
	h.write("a.txt", "# mine\nhello, world\nlast\n")

	lsp := h.newLSP(t)
	lsp.Handle(protocol.MethodWorkspaceApplyEdit, applyToDisk(t))
	args, _ := json.Marshal(lspserver.RevertArgs{RunID: runID})
	var res lspserver.RevertResult
	if err := lsp.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: lspserver.CommandRevert, Arguments: []protocol.LSPAny{args}}, &res); err != nil {
		t.Fatalf("agentls.revert: %v", err)
	}
	if res.Reverted != 2 || len(res.Conflicts) != 0 || res.FailureReason != "" {
		t.Fatalf("revert = %+v", res)
	}
	if got := h.read("a.txt"); got != "# mine\nhello\nlast\n" {
		t.Fatalf("a.txt after revert %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "NEW.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("NEW.md survived the revert: %v", err)
	}
	if snap, err := h.reverts().Load(runID); err != nil || !snap.Reverted {
		t.Fatalf("the revert is not remembered: %+v %v", snap, err)
	}
	h.mustPrompt(id, "what changed?")
	reqs := h.chats()
	if last := reqs[len(reqs)-1]; !last.Contains("The user reverted the changes of run " + runID) {
		t.Fatal("the session's next prompt over ACP was not told about the revert")
	}
}

// applyToDisk is a workspace/applyEdit handler that applies the edit's
// documentChanges to the files on disk (text edits and deletes).
func applyToDisk(t *testing.T) lsptest.Handler {
	return func(m lsptest.Message) (any, *lsptest.Error) {
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					Kind         string                                           `json:"kind"`
					URI          uri.URI                                          `json:"uri"`
					TextDocument protocol.OptionalVersionedTextDocumentIdentifier `json:"textDocument"`
					Edits        []text.Edit                                      `json:"edits"`
				} `json:"documentChanges"`
			} `json:"edit"`
		}
		if err := m.DecodeParams(&p); err != nil {
			return nil, &lsptest.Error{Code: lsptest.CodeInvalidParams, Message: err.Error()}
		}
		fail := func(err error) (any, *lsptest.Error) {
			t.Errorf("applyEdit: %v", err)
			reason := err.Error()
			return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
		}
		for _, dc := range p.Edit.DocumentChanges {
			switch {
			case dc.Kind == "delete":
				if err := os.Remove(dc.URI.FsPath()); err != nil {
					return fail(err)
				}
			case dc.Kind == "":
				path := dc.TextDocument.URI.FsPath()
				b, err := os.ReadFile(path)
				if err != nil {
					return fail(err)
				}
				// The edits all refer to the text before any of them:
				// apply them last first.
				edits := slices.Clone(dc.Edits)
				slices.SortFunc(edits, func(a, b text.Edit) int {
					if a.Range.Start.Line != b.Range.Start.Line {
						return int(b.Range.Start.Line) - int(a.Range.Start.Line)
					}
					return int(b.Range.Start.Character) - int(a.Range.Start.Character)
				})
				var changes []text.Change
				for _, e := range edits {
					changes = append(changes, text.Change{Range: &e.Range, Text: e.NewText})
				}
				out, err := text.ApplyChanges(string(b), changes, text.UTF16)
				if err != nil {
					return fail(err)
				}
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					return fail(err)
				}
			default:
				return fail(errors.New("unexpected resource operation " + dc.Kind))
			}
		}
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	}
}

// The hint quotes a workspace path the shell would split.
func TestRevertHintQuotesWorkspace(t *testing.T) {
	dir := filepath.Join(realDir(t, t.TempDir()), "my work's")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := start(t, editAndCreate("done"), harnessOpts{dir: dir})
	h.write("a.txt", revertOrig)
	h.mustPrompt(h.newSession(), "greet the world")
	us, perms := h.client.snapshot()
	runID := runIDOf(t, perms)
	quoted := "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	if want := "agentls revert --dir " + quoted + " " + runID; !strings.Contains(updateTexts(us), want) {
		t.Fatalf("the tool calls do not say %q:\n%s", want, updateTexts(us))
	}
}
