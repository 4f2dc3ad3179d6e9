package desk

import (
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/tools"
)

// A turn's changes and its checks. With checks configured, putting each
// change to the person as it is staged (or writing it, in apply mode)
// would hand over code the checks have not judged yet: the model's first
// attempt, which the checks then fail and the model fixes. So such a turn
// holds its staged changes until its end, and then one rule, EndOfTurn,
// says what becomes of them from the run's outcome, its checks and
// whether a person is asked before anything is written. The ACP face asks
// (preview) or writes on its own (apply, "allow always"); `agentls run
// --apply` writes on its own; both call EndOfTurn, so a check that failed
// or could not run means the same on each.

// Held is one file a turn staged a change to and holds for its end.
type Held struct{ RunID, Path string }

// HoldsForChecks reports whether a turn in mode with that many configured
// checks holds its changes for its end: a plan changes nothing, and
// without checks there is no verdict to wait for (an early answer, a
// rejection with its reason, steers the rest of the run).
func HoldsForChecks(mode string, checks int) bool {
	return checks > 0 && mode != agent.ModePlan
}

// Hold adds h to held, once, keeping the order first staged.
func Hold(held []Held, h Held) []Held {
	if slices.Contains(held, h) {
		return held
	}
	return append(held, h)
}

// StillPending is the held changes that still have pending hunks (the
// others were decided meanwhile, from another face or by a later change).
func (d *Desk) StillPending(held []Held) []Held {
	var out []Held
	for _, h := range held {
		if p, ok := d.Proposal(h.RunID, h.Path); ok && p.HasPending() {
			out = append(out, h)
		}
	}
	return out
}

// TurnEnd is what a turn does with its held changes.
type TurnEnd int

const (
	// Keep: nothing is asked about or written; the changes stay pending
	// (and are not put to the person at the next turn: KeptBack).
	Keep TurnEnd = iota
	// Ask each file once, with its final diff and CheckSummary.
	Ask
	// Write without asking.
	Write
)

// EndVerdict is EndOfTurn's answer: what to do, and for Keep why.
type EndVerdict struct {
	Do TurnEnd
	// Stopped: the run did not finish, so its checks never passed.
	Stopped bool
	// Failing and NotRun name the checks that failed and those that
	// could not run (tools.Unpassed).
	Failing, NotRun []string
}

// EndOfTurn decides what becomes of a turn's changes once its run is
// over. asks says whether the person is asked before anything is written.
// A run that did not finish, or a check that still fails, keeps them. A
// check that could not run judged nothing: a person who is asked reads
// why with the change and decides; nothing is written unasked on a
// verdict nobody gave (`agentls run --apply` refused that, the ACP apply
// mode wrote: the safer rule holds for both).
func EndOfTurn(out agent.Outcome, asks bool) EndVerdict {
	v := EndVerdict{Stopped: out.Status != agent.StatusFinished}
	v.Failing, v.NotRun = tools.Unpassed(out.Checks)
	switch {
	case v.Stopped, len(v.Failing) > 0:
		v.Do = Keep
	case asks:
		v.Do = Ask
	case len(v.NotRun) > 0:
		v.Do = Keep
	default:
		v.Do = Write
	}
	return v
}

// Why words a Keep verdict for people ("" for the others): the first of
// the run stopping, checks failing, checks not run.
func (v EndVerdict) Why() string {
	switch {
	case v.Do != Keep:
		return ""
	case v.Stopped:
		return "the run stopped before its checks passed"
	case len(v.Failing) > 0:
		return "checks still fail (" + strings.Join(v.Failing, ", ") + ")"
	}
	return "checks could not run (" + strings.Join(v.NotRun, ", ") + ")"
}

// CheckSummary is what the checks said about a turn's final changes,
// shown with each change the person is asked about: the passed ones and
// those that could not run (a failing one is never asked about).
func CheckSummary(cs []tools.CheckResult) string {
	if len(cs) == 0 {
		return "No configured check applies to these changes."
	}
	var b strings.Builder
	b.WriteString("Checks on the turn's final changes:")
	for _, c := range cs {
		switch {
		case c.Passed:
			b.WriteString("\n✓ " + agent.CheckLine(c))
		case c.NotRun:
			b.WriteString("\n⚠ " + agent.CheckLine(c))
		}
	}
	return b.String()
}

// EarlierPending is the changes a session's next turn asks about before
// its run starts: those of the session's earlier runs still pending (left
// over LSP, by `agentls run`, or by a turn cancelled before its answer),
// except the ones kept back because their checks did not pass (keptBack;
// nil keeps none), which would put failing code to the person all the
// same. A plan asks about nothing (AsksEarlier).
func (d *Desk) EarlierPending(sess *agent.Session, keptBack func(Held) bool) []proposal.Proposal {
	var out []proposal.Proposal
	for _, p := range d.store.List("") {
		if !sess.HasRun(p.RunID) || !p.HasPending() || (keptBack != nil && keptBack(Held{p.RunID, p.Path})) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// AsksEarlier reports whether a turn in mode first asks about its
// session's earlier pending changes: not a plan, which writes nothing.
func AsksEarlier(mode string) bool { return mode != agent.ModePlan }

// WritesUnasked reports whether a face writes a change without asking in
// mode: apply mode, or once the person allowed every change.
func WritesUnasked(mode string, allowAll bool) bool {
	return allowAll || mode == config.ModeApply
}
