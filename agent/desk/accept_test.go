package desk_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// A landed accept: the writer gets the plan on the current text and the
// runs it applies; the decisions carry the accept's reason and the texts
// a revert needs, and the hunks leave review.
func TestAcceptWritesAndSettles(t *testing.T) {
	base := "a\nb\nc\n"
	d, v, path := setup(t, base)
	src := desk.ViewSource(v, false)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "a\nB\nc\n"})
	var got desk.ToWrite
	out, err := d.Accept(src, proposal.Filter{RunID: "r1", Path: path}, text.UTF8, "the rest was wrong", func(l desk.ToWrite) error {
		got = l
		return os.WriteFile(path, []byte(l.Plan.Files[0].Expected), 0o644)
	})
	if err != nil || !out.Landed() || out.Later || out.Failed != "" {
		t.Fatalf("accept = %+v, %v", out, err)
	}
	if len(got.Plan.Files) != 1 || got.Plan.Files[0].Before != base || got.Plan.Files[0].Expected != "a\nB\nc\n" || got.Runs[path]["r1"] != 1 {
		t.Fatalf("writer got %+v", got)
	}
	if len(out.Decisions) != 1 {
		t.Fatalf("decisions = %+v", out.Decisions)
	}
	dec := out.Decisions[0]
	if !dec.Accepted || dec.RunID != "r1" || dec.Path != path || dec.Reason != "the rest was wrong" || dec.Hunks != 1 ||
		dec.Applied != "a\nB\nc\n" || dec.LandedBefore != base || dec.LandedAfter != "a\nB\nc\n" || dec.Remaining != nil {
		t.Fatalf("decision = %+v", dec)
	}
	if _, ok := d.Proposal("r1", path); ok {
		t.Fatalf("accepted proposal still in review: %+v", d.Store().List(""))
	}
}

// A write that fails loses nothing: the hunks stay pending with the
// writer's error as their last error, and no session is told anything.
func TestAcceptFailedWriteStaysPending(t *testing.T) {
	base := "a\nb\nc\n"
	d, v, path := setup(t, base)
	src := desk.ViewSource(v, false)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "a\nB\nc\n"})
	out, err := d.Accept(src, proposal.Filter{RunID: "r1"}, text.UTF8, "", func(desk.ToWrite) error {
		return errors.New("the editor refused the edit")
	})
	if err != nil || out.Landed() || out.Failed != "the editor refused the edit" || out.Decisions != nil {
		t.Fatalf("accept = %+v, %v", out, err)
	}
	p := only(t, d, "r1", path)
	if len(p.Hunks) != 1 || p.Hunks[0].Status != proposal.StatusPending || p.Hunks[0].LastError != "the editor refused the edit" || p.Hunks[0].Applying {
		t.Fatalf("hunks after the failed write = %+v", p.Hunks)
	}
	// The hunk can be accepted again, and then its last error goes with it.
	out, err = d.Accept(src, proposal.Filter{RunID: "r1"}, text.UTF8, "", func(desk.ToWrite) error { return nil })
	if err != nil || len(out.Decisions) != 1 {
		t.Fatalf("second accept = %+v, %v", out, err)
	}
}

// Hunks the user's typing reached are not written: the plan carries the
// others, and the conflicts say which hunk and why.
func TestAcceptReportsConflicts(t *testing.T) {
	base := "one\ntwo\nthree\nfour\nfive\n"
	d, v, path := setup(t, base)
	v.Open(path, 1, base)
	src := desk.ViewSource(v, true)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "ONE\ntwo\nthree\nfour\nFIVE\n"})
	hunks := only(t, d, "r1", path).Hunks
	r := text.Range{Start: text.Position{Line: 4}, End: text.Position{Line: 4, Character: 4}}
	cs := []text.Change{{Range: &r, Text: "cinq"}}
	if err := d.Change(src, path, 2, cs, text.UTF16, func() error { return v.Change(path, 2, cs, text.UTF16) }); err != nil {
		t.Fatal(err)
	}
	writes := 0
	out, err := d.Accept(src, proposal.Filter{RunID: "r1"}, text.UTF16, "", func(l desk.ToWrite) error {
		writes++
		if fe := l.Plan.Files[0]; fe.Expected != "ONE\ntwo\nthree\nfour\ncinq\n" || len(fe.HunkIDs) != 1 || fe.HunkIDs[0] != hunks[0].ID {
			t.Errorf("planned %+v", fe)
		}
		return nil
	})
	if err != nil || writes != 1 || len(out.Plan.Conflicts) != 1 || out.Plan.Conflicts[0].HunkID != hunks[1].ID || out.Plan.Conflicts[0].Reason == "" {
		t.Fatalf("accept = %+v, %v (writes %d)", out, err, writes)
	}
	if msg := desk.ConflictText(out.Plan.Conflicts); !strings.HasPrefix(msg, hunks[1].ID+": ") {
		t.Fatalf("conflict text %q", msg)
	}
	// Only conflicted hunks left: nothing to write, the conflict reported.
	out, err = d.Accept(src, proposal.Filter{RunID: "r1"}, text.UTF16, "", func(desk.ToWrite) error {
		t.Error("an empty plan was written")
		return nil
	})
	if err != nil || !out.Plan.Empty() || out.Landed() || len(out.Plan.Conflicts) != 1 {
		t.Fatalf("accept of the conflicted rest = %+v, %v", out, err)
	}
}

// The file changed on disk and no hook told the desk: the accept plans
// on the current text, never on the store's older copy.
func TestAcceptPlansOnCurrentText(t *testing.T) {
	base := "a\nb\n"
	d, v, path := setup(t, base)
	src := desk.ViewSource(v, false)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "a\nB\n"})
	if err := os.WriteFile(path, []byte("top\na\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.Invalidate(path)
	out, err := d.Accept(src, proposal.Filter{Path: path}, text.UTF8, "", func(l desk.ToWrite) error { return nil })
	if err != nil || len(out.Plan.Files) != 1 || out.Plan.Files[0].Before != "top\na\nb\n" || out.Plan.Files[0].Expected != "top\na\nB\n" {
		t.Fatalf("accept = %+v, %v", out, err)
	}
}

// An edit that shows later is the writer's to settle: the accept
// returns no decisions and keeps the hunks in flight until then.
func TestAcceptLandsLater(t *testing.T) {
	base := "a\nb\n"
	d, v, path := setup(t, base)
	src := desk.ViewSource(v, false)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "a\nB\n"})
	var held desk.ToWrite
	out, err := d.Accept(src, proposal.Filter{}, text.UTF8, "", func(l desk.ToWrite) error {
		held = l
		return desk.ErrLandsLater
	})
	if err != nil || !out.Later || !out.Landed() || out.Decisions != nil {
		t.Fatalf("accept = %+v, %v", out, err)
	}
	if p := only(t, d, "r1", path); !p.Hunks[0].Applying {
		t.Fatalf("hunk not in flight: %+v", p.Hunks)
	}
	ds := d.Settle(held.Plan, held.Runs)
	if len(ds) != 1 || !ds[0].Accepted || ds[0].Applied != "a\nB\n" {
		t.Fatalf("settled later = %+v", ds)
	}
}

// A reject records the document as the face sees it (the editor's
// buffer, not the disk) for the session to tell the next run what
// changed since.
func TestRejectRecordsDocument(t *testing.T) {
	base := "a\nb\n"
	d, v, path := setup(t, base)
	v.Open(path, 1, "unsaved\n"+base)
	src := desk.ViewSource(v, true)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "a\nB\n"})
	n, ds := d.Reject(src, "no", proposal.Filter{RunID: "r1"})
	if n != 1 || len(ds) != 1 || ds[0].Document != "unsaved\n"+base || ds[0].Reason != "no" || ds[0].Accepted {
		t.Fatalf("reject = %d %+v", n, ds)
	}
}

// The question names each file once and offers "No reason" first; a
// chosen reason goes on every decision, and no answer rejects without one.
func TestAskReason(t *testing.T) {
	ds := []agent.Decision{{RunID: "r1", Path: "/w/a.go"}, {RunID: "r2", Path: "/w/a.go"}, {RunID: "r1", Path: "/w/b.go"}}
	var question string
	note, err := desk.AskReason(context.Background(), ds, func(ctx context.Context, q string, cs []agent.Choice) (agent.Choice, error) {
		question = q
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the question is not bounded")
		}
		if cs[0].ID != desk.NoReason || cs[0].Allow {
			t.Errorf("first choice %+v", cs[0])
		}
		return agent.Decide(cs, "Wrong approach", nil), nil
	})
	if err != nil || question != "Agent: rejected the change to a.go, b.go. Why reject? (the agent is told)" {
		t.Fatalf("question %q, %v", question, err)
	}
	for _, d := range ds {
		if d.Reason != "Wrong approach" {
			t.Fatalf("decisions = %+v", ds)
		}
	}
	if note != `agentls: rejection passed on with the reason "Wrong approach"` {
		t.Fatalf("note %q", note)
	}
	for _, answer := range []func([]agent.Choice) (agent.Choice, error){
		func(cs []agent.Choice) (agent.Choice, error) { return agent.Decide(cs, desk.NoReason, nil), nil },
		func([]agent.Choice) (agent.Choice, error) { return agent.Choice{}, errors.New("dismissed") },
	} {
		note, _ = desk.AskReason(context.Background(), ds, func(_ context.Context, _ string, cs []agent.Choice) (agent.Choice, error) { return answer(cs) })
		if ds[0].Reason != "" || ds[2].Reason != "" || note != "agentls: rejection passed on without a reason" {
			t.Fatalf("no reason: %q %+v", note, ds)
		}
	}
}
