package desk_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// The bounds of these tests are either so long that only a missed wake-up
// reaches them (the test then hangs and fails by its own timeout) or so
// short that the edit cannot have shown: no assertion is about time.
const forever = time.Hour

// accepting stages one change of an open buffer and plans its accept:
// the editor is at version 1 with base, and the plan expects want.
type accepting struct {
	d    *desk.Desk
	v    *workspace.View
	src  desk.Source
	path string
	plan proposal.AcceptPlan
	runs map[string]map[string]int
}

const (
	landBase = "one\ntwo\nthree\n"
	landWant = "one\nTWO\nthree\n"
)

func newAccepting(t *testing.T) *accepting {
	t.Helper()
	d, v, path := setup(t, landBase)
	v.Open(path, 1, landBase)
	a := &accepting{d: d, v: v, src: desk.ViewSource(v, true), path: path}
	a.d.Stage(a.src, "r1", tools.StagedFile{Path: path, Base: landBase, Text: landWant})
	a.replan(t)
	return a
}

// replan plans the accept of every pending hunk again.
func (a *accepting) replan(t *testing.T) {
	t.Helper()
	plan, err := a.d.Plan(a.src, proposal.Filter{}, text.UTF16)
	if err != nil || len(plan.Files) != 1 || plan.Files[0].Expected != a.expected() {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	a.plan, a.runs = plan, a.d.PlanRuns(plan)
}

func (a *accepting) expected() string {
	buf, _ := a.v.Overlay(a.path)
	return strings.Replace(buf.Text, "two", "TWO", 1)
}

// didChange is the editor's didChange replacing the whole buffer with s.
func (a *accepting) didChange(t *testing.T, version int32, s string) {
	t.Helper()
	cs := []text.Change{{Text: s}}
	if err := a.d.Change(a.src, a.path, version, cs, text.UTF16, func() error { return a.v.Change(a.path, version, cs, text.UTF16) }); err != nil {
		t.Fatal(err)
	}
}

// The editor's didChange comes while the command waits within the grace:
// the edit is settled in the answer.
func TestLandingShowsWithinGrace(t *testing.T) {
	a := newAccepting(t)
	w := a.d.WatchLanding(a.v, a.plan, desk.LandingBounds{Timeout: forever, Grace: forever})
	defer w.Stop()
	got := make(chan desk.LandingCheck, 1)
	go func() { got <- w.Check(context.Background()) }()
	a.didChange(t, 2, landWant)
	if c := <-got; c != desk.LandingNow {
		t.Fatalf("check = %v, want LandingNow", c)
	}
	ds := a.d.Settle(a.plan, a.runs)
	if len(ds) != 1 || !ds[0].Accepted || ds[0].LandedAfter != landWant || ds[0].Hunks != 1 {
		t.Fatalf("decisions = %+v", ds)
	}
}

// The editor sends its didChange only after the command's answer: the
// check says late, Confirm settles the accept when it shows, and the
// desk's next accept no longer waits for the grace.
func TestLandingShowsLate(t *testing.T) {
	a := newAccepting(t)
	w := a.d.WatchLanding(a.v, a.plan, desk.LandingBounds{Timeout: forever, Grace: time.Nanosecond})
	if c := w.Check(context.Background()); c != desk.LandingLate {
		t.Fatalf("check = %v, want LandingLate", c)
	}
	got := make(chan desk.Confirmation, 1)
	go func() { got <- w.Confirm(context.Background(), a.runs) }()
	a.didChange(t, 2, landWant)
	c := <-got
	if !c.Shown || c.Stopped || c.Reason != "" || len(c.Decisions) != 1 || !c.Decisions[0].Accepted || c.Decisions[0].LandedAfter != landWant {
		t.Fatalf("confirmation = %+v", c)
	}
	if left := a.d.Store().List(a.path); len(left) != 0 {
		t.Fatalf("store after the late landing: %+v", left)
	}

	// The next accept skips the grace: with a grace of an hour, only the
	// memory of the late landing lets Check answer before ctx ends.
	a.d.Stage(a.src, "r2", tools.StagedFile{Path: a.path, Base: landWant, Text: "one\nTWO\nthree\nfour\n"})
	plan, err := a.d.Plan(a.src, proposal.Filter{RunID: "r2"}, text.UTF16)
	if err != nil || len(plan.Files) != 1 {
		t.Fatalf("second plan = %+v, %v", plan, err)
	}
	w2 := a.d.WatchLanding(a.v, plan, desk.LandingBounds{Timeout: forever, Grace: forever})
	defer w2.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if c := w2.Check(ctx); c != desk.LandingLate {
		t.Fatalf("check after a late landing = %v, want LandingLate", c)
	}
}

// The edit never shows: within the command the bound passes (missing);
// after the answer the plan fails with the reason, its hunk back in
// review and nothing recorded as accepted.
func TestLandingNeverShows(t *testing.T) {
	a := newAccepting(t)
	w := a.d.WatchLanding(a.v, a.plan, desk.LandingBounds{Timeout: time.Millisecond, Grace: forever})
	c := w.Check(context.Background())
	w.Stop()
	if c != desk.LandingMissing {
		t.Fatalf("check = %v, want LandingMissing", c)
	}
	a.d.Store().Failed(a.plan, desk.ReasonNotShown)

	a.replan(t)
	w = a.d.WatchLanding(a.v, a.plan, desk.LandingBounds{Timeout: time.Millisecond, Grace: time.Nanosecond})
	if c := w.Check(context.Background()); c != desk.LandingLate {
		t.Fatalf("check = %v, want LandingLate", c)
	}
	conf := w.Confirm(context.Background(), a.runs)
	if conf.Shown || conf.Stopped || conf.Reason != desk.ReasonNotShown || conf.Back != 1 || conf.Decisions != nil {
		t.Fatalf("confirmation = %+v", conf)
	}
	p := only(t, a.d, "r1", a.path)
	if len(p.Hunks) != 1 || p.Hunks[0].Status != proposal.StatusPending || p.Hunks[0].LastError != desk.ReasonNotShown {
		t.Fatalf("hunks after the failed landing: %+v", p.Hunks)
	}
}

// The server stops while an accept is checked after its answer: the plan
// fails, and nobody is to be told.
func TestLandingConfirmStopped(t *testing.T) {
	a := newAccepting(t)
	w := a.d.WatchLanding(a.v, a.plan, desk.LandingBounds{Timeout: forever, Grace: time.Nanosecond})
	if c := w.Check(context.Background()); c != desk.LandingLate {
		t.Fatalf("check = %v, want LandingLate", c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	conf := w.Confirm(ctx, a.runs)
	if conf.Shown || !conf.Stopped || conf.Reason == "" || conf.Reason == desk.ReasonNotShown {
		t.Fatalf("confirmation = %+v", conf)
	}
	if p := only(t, a.d, "r1", a.path); p.Hunks[0].LastError != conf.Reason {
		t.Fatalf("hunk error %q, want %q", p.Hunks[0].LastError, conf.Reason)
	}
}

// A didChange that brings another text (the editor applied something
// else) wakes the check but never counts: the bound passes, and the hunk
// is not accepted.
func TestLandingOtherTextDoesNotCount(t *testing.T) {
	a := newAccepting(t)
	w := a.d.WatchLanding(a.v, a.plan, desk.LandingBounds{Timeout: time.Millisecond, Grace: forever})
	defer w.Stop()
	a.didChange(t, 2, "one\nTWO!\nthree\n")
	if c := w.Check(context.Background()); c != desk.LandingMissing {
		t.Fatalf("check = %v, want LandingMissing", c)
	}
	if a.d.Store().Landed(a.plan, a.path) {
		t.Fatal("the store counts another text as the landing")
	}
	a.d.Store().Failed(a.plan, desk.ReasonNotShown)
	p := only(t, a.d, "r1", a.path)
	if len(p.Hunks) != 1 || p.Hunks[0].Status == proposal.StatusPending {
		t.Fatalf("typing over the hunk left %+v", p.Hunks)
	}
}
