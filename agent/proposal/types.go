package proposal

import (
	"errors"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// ErrNotFound is returned (wrapped) when a filter names a hunk id the store
// does not hold, so lspserver can answer with InvalidParams rather than a
// silent no-op.
var ErrNotFound = errors.New("no such hunk")

// Status is where a hunk stands; the values are the wire strings of
// agentls/proposals.
type Status string

// Hunk statuses.
const (
	// StatusPending: the hunk applies cleanly to the current text.
	StatusPending Status = "pending"
	// StatusConflicted: the user changed the hunk's lines since it was
	// proposed; it is never applied until it heals.
	StatusConflicted Status = "conflicted"
)

// Hunk is a snapshot of one group of adjacent changed lines of a proposal.
type Hunk struct {
	// ID is stable for the hunk's life and never reused.
	ID    string
	RunID string
	// Source is its proposal's Source: a suggestion's hunk is told as
	// such ("next edit"), not by a run id the user never started.
	Source string
	Path   string
	// Start and End are byte offsets in the current document text
	// (Proposal.Text): the hunk replaces Text[Start:End] with NewText. For a
	// conflicted hunk they cover the region the hunk's lines became.
	Start, End int
	// Range is Start/End in an LSP encoding; it is filled only by the
	// calls that take a text.Encoding (ListLSP, HunksAtLSP), else zero.
	Range   text.Range
	OldText string
	NewText string
	Status  Status
	// Reason says why a hunk is conflicted, for the user.
	Reason string
	// SupersededBy is the id of the accepted hunk (of another run) that
	// made this one conflicted for good: it changed the same lines or
	// already made the same change (clash.go). Empty otherwise.
	SupersededBy string
	// LastError is the client's reason when the last accept of this hunk
	// failed; empty otherwise.
	LastError string
	// Applying is true while an accept plan holding the hunk awaits
	// Applied/Failed: the hunk is not selected again meanwhile.
	Applying bool
}

// Proposal is a snapshot of one run's proposed change to one file.
type Proposal struct {
	Path  string
	RunID string
	// Source is "" for an agent run's proposal, else what suggested it
	// (Store.Suggest, e.g. "next-edit").
	Source string
	// Base is the file text the run staged its change against, and
	// BaseVersion its document version (nil when the file was not open).
	Base        string
	BaseVersion *int32
	// Proposed is the run's proposed text, as given to Put.
	Proposed string
	// Created: the run creates the file (it did not exist).
	Created bool
	// Text is the current document text the hunks are relative to, and
	// Version its document version (nil when not open).
	Text    string
	Version *int32
	// Hunks are ordered by Start.
	Hunks []Hunk
}

// Status is conflicted when any hunk is, else pending; it is the
// proposal-level status of agentls/proposals.
func (p Proposal) Status() Status {
	for _, h := range p.Hunks {
		if h.Status == StatusConflicted {
			return StatusConflicted
		}
	}
	return StatusPending
}

// Tally counts the proposal's hunks still to review and those
// conflicted, with the conflicts' reasons: what a follow-up run is told
// about it (agent.ProposalState, built the same way by both front-ends).
func (p Proposal) Tally() (pending, conflicted int, reasons []string) {
	for _, h := range p.Hunks {
		if h.Status == StatusConflicted {
			conflicted++
			reasons = append(reasons, h.Reason)
		} else {
			pending++
		}
	}
	return pending, conflicted, reasons
}

// Result is the current text with every pending hunk applied: the
// "proposedText" to show for the document as the client has it now
// (conflicted hunks are left out, since they cannot apply).
func (p Proposal) Result() string {
	var edits []udiff.Edit
	for _, h := range p.Hunks {
		if h.Status == StatusPending {
			edits = append(edits, udiff.Edit{Start: h.Start, End: h.End, New: h.NewText})
		}
	}
	out, err := udiff.Apply(p.Text, edits)
	if err != nil { // unreachable: pending hunks of one proposal never overlap
		return p.Text
	}
	return out
}

// Filter selects hunks; an empty field matches anything, so the zero Filter
// selects every hunk in the store. It mirrors the arguments of
// agentls.accept / agentls.reject.
type Filter struct {
	RunID  string
	Path   string
	HunkID string
}

func (f Filter) matches(runID, path, hunkID string) bool {
	return (f.RunID == "" || f.RunID == runID) &&
		(f.Path == "" || f.Path == path) &&
		(f.HunkID == "" || f.HunkID == hunkID)
}

// Conflict reports a selected hunk that an accept left out, and why.
type Conflict struct {
	Path   string
	HunkID string
	Reason string
}

// FileEdit is the part of an accept plan for one file.
type FileEdit struct {
	Path string
	// Version is the document version the edits were computed against
	// (nil: not open); put it in the TextDocumentEdit so the client refuses
	// the edit if the document moved on.
	Version *int32
	// Created: the file does not exist yet; send a CreateFile operation
	// before the edits (or create it, in headless mode).
	Created bool
	// HunkIDs are the hunks this edit applies, in document order.
	HunkIDs []string
	// Edits are hunk-granular byte edits against Before, sorted.
	Edits []udiff.Edit
	// TextEdits are the same change refined to a minimal character-level
	// set, with ranges in the plan's encoding relative to Before; they never
	// split a CRLF or a rune.
	TextEdits []text.Edit
	// Before is the text the edits apply to; Expected is the result, so
	// the caller can check what the client reports back.
	Before   string
	Expected string
}

// AcceptPlan is what an accept sends: the edits per file plus the selected
// hunks that could not be included. Hand it back to Applied or Failed.
type AcceptPlan struct {
	ID        uint64
	Encoding  text.Encoding
	Files     []FileEdit
	Conflicts []Conflict
}

// Empty reports whether the plan has no edit to send.
func (p AcceptPlan) Empty() bool { return len(p.Files) == 0 }

// HasPending reports whether any hunk of p can still apply (is not
// conflicted): the one rule every face uses to tell a live proposal from
// one left only as a record of conflicts.
func (p Proposal) HasPending() bool {
	for _, h := range p.Hunks {
		if h.Status != StatusConflicted {
			return true
		}
	}
	return false
}
