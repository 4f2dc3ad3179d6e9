package acpserver_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/revert"
	"github.com/agentls/agentls/internal/workspace"
)

// Changes allowed over ACP can be taken back later: each write records a
// revert snapshot (agent/revert) in the state directory that `agentls
// revert` and the LSP server's agentls.revert read.

// An allowed change, written by the client (fs/write_text_file, then
// saved) or by agentls (the confined write), is recorded; undoing the
// run's snapshot on disk as `agentls revert` does takes a.txt back,
// keeping the line the user changed since, and deletes the created file.
func TestRevertChangesAllowedOverACP(t *testing.T) {
	for _, byClient := range []bool{true, false} {
		name := map[bool]string{true: "fs_write_text_file", false: "confined_write"}[byClient]
		t.Run(name, func(t *testing.T) {
			h := acptest.Start(t, acptest.EditAndCreate("done"), acptest.Options{FS: byClient})
			h.Write("a.txt", acptest.RevertOrig)
			id := h.NewSession()
			h.MustPrompt(id, "greet the world")
			_, perms := h.Client.Snapshot()
			runID := acptest.RunID(t, perms)
			if byClient {
				writes := h.Client.Recorded().Writes
				if len(writes) != 2 {
					t.Fatalf("%d fs/write_text_file calls, want 2", len(writes))
				}
				for _, w := range writes { // the editor saves its buffers
					if err := os.WriteFile(w.Path, []byte(w.Content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if h.Read("a.txt") != "# title\nhello, world\nlast\n" || h.Read("NEW.md") != "new\n" {
				t.Fatalf("not written: a.txt %q", h.Read("a.txt"))
			}

			// The edit's tool call tells the user how to take the run back.
			us, _ := h.Client.Snapshot()
			if want := "To take run " + runID + " back: agentls revert --dir " + h.Dir + " " + runID; !strings.Contains(acptest.UpdateTexts(us), want) {
				t.Errorf("the tool calls do not say %q:\n%s", want, acptest.UpdateTexts(us))
			}
			snap, err := h.Reverts().Load(runID)
			if err != nil {
				t.Fatalf("no revert snapshot of run %s: %v", runID, err)
			}
			if snap.SessionID != string(id) || len(snap.Files) != 2 {
				t.Fatalf("snapshot: session %q (want %q), %d files", snap.SessionID, id, len(snap.Files))
			}
			for _, f := range snap.Files {
				switch filepath.Base(f.Path) {
				case "a.txt":
					if f.Before != acptest.RevertOrig || f.After != "# title\nhello, world\nlast\n" || f.Created {
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

			h.Write("a.txt", "# mine\nhello, world\nlast\n") // the user's edit on another line
			view := workspace.New(workspace.Options{Folders: []string{h.Dir}})
			var results []revert.Result
			for _, f := range snap.Files {
				r, err := revert.UndoOnDisk(view, f)
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, r)
			}
			if got := h.Read("a.txt"); got != "# mine\nhello\nlast\n" {
				t.Fatalf("a.txt after revert %q", got)
			}
			if _, err := os.Stat(filepath.Join(h.Dir, "NEW.md")); !errors.Is(err, fs.ErrNotExist) {
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
	h := acptest.Start(t, acptest.EditAndCreate("done"), acptest.Options{})
	h.Write("a.txt", acptest.RevertOrig)
	id := h.NewSession()
	if _, err := h.Conn.SetSessionMode(h.Ctx(), acp.SetSessionModeRequest{SessionId: id, ModeId: "apply"}); err != nil {
		t.Fatal(err)
	}
	h.MustPrompt(id, "greet the world")
	if _, perms := h.Client.Snapshot(); len(perms) != 0 || h.Read("a.txt") != "# title\nhello, world\nlast\n" {
		t.Fatalf("apply mode: %d permissions, a.txt %q", len(perms), h.Read("a.txt"))
	}
	names, err := filepath.Glob(filepath.Join(h.State, "agentls", "reverts", "*.json"))
	if err != nil || len(names) != 1 {
		t.Fatalf("snapshots %v %v, want one", names, err)
	}
	snap, err := h.Reverts().Load(strings.TrimSuffix(filepath.Base(names[0]), ".json"))
	if err != nil || snap.SessionID != string(id) || len(snap.Files) != 2 {
		t.Fatalf("snapshot %+v %v", snap, err)
	}
}

// A rejected change writes nothing and records nothing to revert: in a
// run with one change rejected (a.txt) and one allowed (NEW.md), the
// snapshot holds NEW.md alone.
func TestRejectedChangeRecordsNoRevert(t *testing.T) {
	h := acptest.Start(t, acptest.EditAndCreate("done"), acptest.Options{})
	h.Write("a.txt", acptest.RevertOrig)
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		if p.ToolCall.Title != nil && strings.Contains(*p.ToolCall.Title, "a.txt") {
			return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindRejectOnce))
		}
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
	}
	h.MustPrompt(h.NewSession(), "greet the world")
	_, perms := h.Client.Snapshot()
	runID := acptest.RunID(t, perms)
	if len(perms) != 2 || h.Read("a.txt") != acptest.RevertOrig || h.Read("NEW.md") != "new\n" {
		t.Fatalf("%d permissions, a.txt %q", len(perms), h.Read("a.txt"))
	}
	snap, err := h.Reverts().Load(runID)
	if err != nil {
		t.Fatalf("no snapshot of the allowed change: %v", err)
	}
	if len(snap.Files) != 1 || filepath.Base(snap.Files[0].Path) != "NEW.md" {
		t.Fatalf("snapshot files %+v, want NEW.md alone (a.txt was rejected)", snap.Files)
	}
}

// The hint quotes a workspace path the shell would split.
func TestRevertHintQuotesWorkspace(t *testing.T) {
	dir := filepath.Join(acptest.RealDir(t, t.TempDir()), "my work's")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := acptest.Start(t, acptest.EditAndCreate("done"), acptest.Options{Dir: dir})
	h.Write("a.txt", acptest.RevertOrig)
	h.MustPrompt(h.NewSession(), "greet the world")
	us, perms := h.Client.Snapshot()
	runID := acptest.RunID(t, perms)
	quoted := "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	if want := "agentls revert --dir " + quoted + " " + runID; !strings.Contains(acptest.UpdateTexts(us), want) {
		t.Fatalf("the tool calls do not say %q:\n%s", want, acptest.UpdateTexts(us))
	}
}
