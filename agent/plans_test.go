package agent

import (
	"errors"
	"os"
	"testing"
)

// TestPlansTwoServers: a plan survives a restart through its file, and a
// plan approved in one server is not approved again in another.
func TestPlansTwoServers(t *testing.T) {
	dir := t.TempDir()
	a := &Plans{Dir: func() string { return dir }}
	if !a.Finished("0a1b", "s1", "  ## Plan\n1. do it\n") || a.Finished("0a1c", "s1", " \n") {
		t.Fatal("Finished: a plan is recorded, an empty answer is not")
	}
	a.Finished("0a1d", "gone", "other session's plan")
	b := &Plans{Dir: func() string { return dir }}
	b.Restore(func(id string) bool { return id == "s1" })
	p, ok := b.Latest()
	if !ok || p.RunID != "0a1b" || p.Plan != "## Plan\n1. do it" {
		t.Fatalf("restored %+v %v, want the session's plan", p, ok)
	}
	if p, ok := a.Take("0a1b"); !ok || p.File == "" {
		t.Fatalf("Take = %+v %v", p, ok)
	}
	if _, err := os.Stat(p.File); !os.IsNotExist(err) {
		t.Fatalf("the approved plan's file is still there: %v", err)
	}
	if _, ok := b.Take("0a1b"); ok {
		t.Fatal("a plan approved in another server was approved again")
	}
	b.Wait(WaitingPlan{RunID: "zz/../x", SessionID: "s1", Plan: "p"})
	if p, _ := b.Latest(); p.File != "" {
		t.Fatalf("a run id that cannot name a file was written: %s", p.File)
	}
	a.DropSessions("gone")
	if _, ok := a.Take("0a1d"); ok {
		t.Fatal("a deleted session's plan can still be approved")
	}
}

// TestPlansApprove: only a finished plan-mode run with words leaves a
// plan; a plan is approved once; a run that fails to start puts it back.
func TestPlansApprove(t *testing.T) {
	var b Plans
	finished := Outcome{Status: StatusFinished, Answer: "1. do it"}
	if b.RunFinished("r0", "s", "preview", finished) || b.RunFinished("r0", "s", ModePlan, Outcome{Status: StatusCancelled, Answer: "1."}) ||
		b.RunFinished("r0", "s", ModePlan, Outcome{Status: StatusFinished, Answer: "  "}) {
		t.Fatal("a plan was recorded from a run that left none")
	}
	if !b.RunFinished("r1", "s", ModePlan, finished) {
		t.Fatal("a finished plan run left no plan")
	}
	if _, err := b.Approve("r9", func(WaitingPlan) error { return nil }); !errors.Is(err, ErrNoPlan) {
		t.Fatalf("approving another run's plan = %v, want ErrNoPlan", err)
	}
	failed := errors.New("no model")
	if _, err := b.Approve("", func(WaitingPlan) error { return failed }); err != failed {
		t.Fatalf("Approve = %v, want the start's error", err)
	}
	var prompt string
	p, err := b.Approve("r1", func(p WaitingPlan) error { prompt = p.CarryOut(); return nil })
	if err != nil || p.SessionID != "s" || prompt != CarryOutPrompt+"1. do it" {
		t.Fatalf("Approve after a failed start = %+v, %v, prompt %q", p, err, prompt)
	}
	if _, err := b.Approve("", func(WaitingPlan) error { t.Fatal("a plan was approved twice"); return nil }); !errors.Is(err, ErrNoPlan) {
		t.Fatalf("second approval = %v, want ErrNoPlan", err)
	}
}
