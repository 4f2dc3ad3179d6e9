package faces_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// The LSP server reverts a run whose changes were allowed over ACP (the
// same snapshot store and the same session): agentls.revert sends one
// workspace/applyEdit that takes a.txt back, keeping the user's line, and
// deletes NEW.md; the session's next prompt over ACP is told.
func TestLSPRevertsRunAllowedOverACP(t *testing.T) {
	h := acptest.Start(t, acptest.EditAndCreate("done"), acptest.Options{})
	h.Write("a.txt", acptest.RevertOrig)
	id := h.NewSession()
	h.MustPrompt(id, "greet the world")
	_, perms := h.Client.Snapshot()
	runID := acptest.RunID(t, perms)
	h.Write("a.txt", "# mine\nhello, world\nlast\n")

	lsp := newLSP(t, h)
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
	if got := h.Read("a.txt"); got != "# mine\nhello\nlast\n" {
		t.Fatalf("a.txt after revert %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.Dir, "NEW.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("NEW.md survived the revert: %v", err)
	}
	if snap, err := h.Reverts().Load(runID); err != nil || !snap.Reverted {
		t.Fatalf("the revert is not remembered: %+v %v", snap, err)
	}
	h.MustPrompt(id, "what changed?")
	reqs := h.Chats()
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
