package agent

import "github.com/agentls/agentls/tools"

// Decision is the user's review of some hunks one run staged for one
// file, sent back to the session as an input (Session.Decide). Review
// computes the texts; the run applies them to its changeset at its next
// step boundary, so its later reads and edits see the file as it now
// stands:
//
//   - accepted: MarkApplied(Path, Applied), Applied being the document text
//     after the edit landed, so the lock treats it as the run's own;
//   - hunks of the run still in review: SetProposed(Path, *Remaining), the
//     current text with those hunks applied (conflicted hunks cannot
//     apply and are left out: the agent sees the user's text there);
//   - nothing of the run left: after an accept SetProposed(Path, Applied)
//     (nothing proposed any more); after a reject Discard(Path), which
//     also makes the run read the file again before editing it.
type Decision struct {
	RunID    string
	Path     string
	Accepted bool
	// Applied is the document text now (accepted decisions).
	Applied string
	// Remaining is the text the run's hunks still in review would make,
	// nil when none are left.
	Remaining *string
	// Document is the document text after the decision (rejected
	// decisions), for telling the next run what changed later.
	Document string
	// Reason is the user's reason for a rejection, if given.
	Reason string
	// Hunks counts the hunks decided.
	Hunks int
	// LandedBefore and LandedAfter are the document text just before and
	// just after an accepted edit landed (accepted decisions), and Created
	// says the edit created the file: what a revert of the run undoes.
	LandedBefore, LandedAfter string
	Created                   bool
}

// Decide records a review decision: the session's next run is told about
// it, and a decision on the run in progress is applied by that run at its
// next step boundary. It is Queue and Record at once.
func (s *Session) Decide(d Decision) {
	s.Queue(d)
	s.Record(d)
}

// Queue passes d to the run in progress when d is about it, which applies
// it at its next step boundary. A front end that asks the user why they
// rejected after the rejection (lspserver/review/reason.go) queues it at
// once, so the run never works on a file the user rejected, and records it
// once the reason is known.
func (s *Session) Queue(d Decision) {
	s.mu.Lock()
	if d.RunID != "" && d.RunID == s.active {
		s.inputs = append(s.inputs, d)
	}
	s.mu.Unlock()
}

// Record tells the session's next run about d and writes it into its
// run's transcript.
func (s *Session) Record(d Decision) {
	s.mu.Lock()
	s.note(d)
	dir := s.transcriptDir
	s.mu.Unlock()
	// The decision goes into its run's transcript, for the run report.
	// Failures are ignored on purpose: a run without a transcript is
	// normal, and review must not slow down for it.
	if d.RunID == "" {
		return
	}
	f := Fate{RunID: d.RunID, Path: d.Path, Fate: FateRejected, Hunks: d.Hunks, Reason: d.Reason}
	if d.Accepted {
		f.Fate = FateAccepted
	}
	_ = s.RecordFate(dir, f) // file I/O, outside the lock
}

// applyDecisions is the run's Options.Between: it applies the decisions
// made on this run since the last step to its own changeset.
func (r *SessionRun) applyDecisions() {
	s := r.s
	s.mu.Lock()
	var mine, rest []Decision
	for _, d := range s.inputs {
		if d.RunID == r.req.RunID {
			mine = append(mine, d)
		} else {
			rest = append(rest, d)
		}
	}
	s.inputs = rest
	s.mu.Unlock()
	for _, d := range mine {
		d.Apply(r.env.Changes)
	}
}

// Apply rewrites the run's changeset entry for d.Path as described on
// Decision; a path the changeset does not hold is left alone.
func (d Decision) Apply(cs *tools.Changeset) {
	f, ok := cs.Get(d.Path)
	if !ok {
		return
	}
	if d.Accepted {
		cs.MarkApplied(d.Path, d.Applied)
	}
	switch {
	case d.Remaining != nil:
		if *d.Remaining != f.Text {
			cs.SetProposed(d.Path, *d.Remaining)
		}
	case d.Accepted:
		cs.SetProposed(d.Path, d.Applied)
	default:
		cs.Discard(d.Path)
	}
}
