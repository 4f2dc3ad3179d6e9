package review

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
)

// CodeLens answers textDocument/codeLens (the commands are routed by
// executeCommand to acceptCommand / rejectCommand): for each pending hunk an
// "Accept" and a "Reject" lens at the hunk's first line; for a conflicted
// hunk a "Conflicted: <reason>" lens (no command: it is a label) and
// "Reject"; where hunks of several runs start on one line, each title
// names its run ("Accept run 3f2a…"). Editors ask again after every
// change and scroll, so the encoded answer is kept per document and served
// again while the proposal store's generation (every staging, rebase over
// an edit, decision) and the encoding are those it was built from: the
// lenses are the store's hunks and nothing else.
func (v *Review) CodeLens(_ context.Context, p *protocol.CodeLensParams) (any, error) {
	path := v.docs.PathOf(p.TextDocument.URI)
	enc := v.core.Session().Encoding
	store := v.state().store
	gen := store.Gen() // read before the build: a change during it misses next time
	if body, ok := v.lenses.Get(path, lensStamp{gen, enc}); ok {
		return body, nil
	}
	body, err := protocol.Marshal(v.buildLenses(path, enc)) // as the dispatcher would
	if err != nil {
		return nil, err
	}
	v.lenses.Put(path, lensStamp{gen, enc}, body)
	return json.RawMessage(body), nil
}

// maxLensDocs bounds the documents whose lenses are kept.
const maxLensDocs = 256

// lensStamp is what a document's lenses are built from besides its path.
type lensStamp struct {
	gen uint64 // the proposal store's generation
	enc text.Encoding
}

// buildLenses is the lenses of path's hunks.
func (v *Review) buildLenses(path string, enc text.Encoding) []protocol.CodeLens {
	props := v.state().store.ListLSP(path, enc)
	lenses := make([]protocol.CodeLens, 0, 2*len(props))
	// Hunks of several runs on one line stack their lenses in one row;
	// "Accept | Reject | Accept | Reject" would not say which is which.
	runsAt := map[uint32]map[string]bool{}
	for _, pr := range props {
		for _, h := range pr.Hunks {
			if runsAt[h.Range.Start.Line] == nil {
				runsAt[h.Range.Start.Line] = map[string]bool{}
			}
			runsAt[h.Range.Start.Line][pr.RunID] = true
		}
	}
	for _, pr := range props {
		for _, h := range pr.Hunks {
			label := func(title string, line uint32) string {
				if len(runsAt[line]) > 1 {
					return title + " " + proposal.Origin(h)
				}
				return title
			}
			line := protocol.Position{Line: h.Range.Start.Line}
			at := protocol.Range{Start: line, End: line}
			if h.Status == proposal.StatusConflicted {
				lenses = append(lenses,
					protocol.CodeLens{Range: at, Command: protocol.Command{Title: "Conflicted: " + h.Reason}},
					protocol.CodeLens{Range: at, Command: reviewCommand(label("Reject", line.Line), CommandReject, h.ID)})
				continue
			}
			lenses = append(lenses,
				protocol.CodeLens{Range: at, Command: reviewCommand(acceptLens(h, label("Accept", line.Line)), CommandAccept, h.ID)},
				protocol.CodeLens{Range: at, Command: reviewCommand(label("Reject", line.Line), CommandReject, h.ID)})
		}
	}
	return lenses
}

// acceptLens is title ("Accept", or "Accept run X" where runs stack), or
// "Accept next edit" for a suggestion, which the user did not ask for and
// should recognise as such.
func acceptLens(h proposal.Hunk, title string) string {
	if h.Source != "" {
		return "Accept " + proposal.Noun(h)
	}
	return title
}

// reviewCommand is the Command that accepts or rejects one hunk.
func reviewCommand(title, command, hunkID string) protocol.Command {
	arg, _ := json.Marshal(Args{HunkID: hunkID}) // cannot fail: a struct of strings
	return protocol.Command{Title: title, Command: command, Arguments: []protocol.LSPAny{arg}}
}
