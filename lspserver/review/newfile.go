package review

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// A proposed new file is published at 0:0–0:0 of its own document, and
// flymake (eglot's diagnostics UI) drops every diagnostic whose region
// is empty (flymake--highlight-line: "Some backends report diagnostics
// with invalid bounds. Don't bother."). In the empty buffer of a file
// that does not exist yet every region is empty, whatever range the
// server sends, and once that buffer is visited eglot also takes the file
// out of flymake's project list. So for clients without our plugins the
// new file is also published as a companion diagnostic in the document
// the run was started from, at the line it was started at: a buffer with
// text, where flymake shows it and the user is looking. Plugins show new
// files themselves, so they get no companion.

// RunOrigin records that runID was started from the document at path
// (a store path) at line, for the companions of the files it proposes.
func (v *Review) RunOrigin(runID, path string, line uint32) {
	v.state().desk.SetOrigin(runID, path, line)
}

// companionsWanted: the client shows diagnostics only through its own UI
// (no agentls plugin), where an empty document can hold none.
func (v *Review) companionsWanted() bool { return !v.core.Session().Features.Plugin }

// queueOrigins runs after newPath was published: the documents its created
// proposals' runs started from (and those that showed it before) are
// republished, so their companions follow the new file's proposal
// (desk.Desk.ShowNewFile).
func (v *Review) queueOrigins(newPath string, created []proposal.Proposal) {
	if !v.companionsWanted() {
		return
	}
	for _, o := range v.st.desk.ShowNewFile(newPath, created) {
		v.diags.queue(o)
	}
}

// newFileCompanions returns the companion diagnostics of the new files
// proposed by runs started from the document at origin.
func (v *Review) newFileCompanions(r *reviewState, origin string) []protocol.Diagnostic {
	if !v.companionsWanted() {
		return nil
	}
	files := r.desk.NewFilesShownIn(origin)
	lines := r.desk.StartedFrom(origin)
	var out []protocol.Diagnostic
	for _, f := range files {
		for _, pr := range r.store.ListLSP(f, v.core.Session().Encoding) {
			line, ok := lines[pr.RunID]
			if !pr.Created || !ok || len(pr.Hunks) == 0 {
				continue
			}
			out = append(out, companionDiagnostic(pr, line))
		}
	}
	return out
}

// companionDiagnostic shows pr (a proposal to create a file) on line of
// another document, over the whole line so that no client finds it empty.
func companionDiagnostic(pr proposal.Proposal, line uint32) protocol.Diagnostic {
	h := pr.Hunks[0]
	d := hunkDiagnostic(h, "")
	name := filepath.Base(pr.Path)
	d.Message = protocol.String(fmt.Sprintf("New file %s (open it to accept or reject): %s", name, proposal.HunkMessage(h)))
	d.Range = core.ToProtocolRange(text.Range{Start: text.Position{Line: line}, End: text.Position{Line: line + 1}})
	d.Data, _ = json.Marshal(diagnosticData{HunkID: h.ID, RunID: h.RunID}) // strings only: cannot fail
	return d
}
