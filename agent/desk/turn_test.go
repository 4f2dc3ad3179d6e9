package desk_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/tools"
)

// One answer per situation: what a turn's held changes become, for a face
// that asks (ACP preview) and one that writes on its own (ACP apply,
// `agentls run --apply`).
func TestEndOfTurn(t *testing.T) {
	passed := tools.CheckResult{Name: "test", Passed: true}
	failed := tools.CheckResult{Name: "test", ExitCode: 1}
	notRun := tools.CheckResult{Name: "lint", NotRun: true, Output: "could not run: sh: lint: not found\n"}
	finished := func(cs ...tools.CheckResult) agent.Outcome {
		return agent.Outcome{Status: agent.StatusFinished, Checks: cs}
	}
	for _, tc := range []struct {
		name      string
		out       agent.Outcome
		asks      bool
		want      desk.TurnEnd
		why       string
		failing   []string
		notRunNow []string
	}{
		{"passed, asked", finished(passed), true, desk.Ask, "", nil, nil},
		{"passed, unasked", finished(passed), false, desk.Write, "", nil, nil},
		{"no check applies", finished(), false, desk.Write, "", nil, nil},
		{"failing, asked", finished(passed, failed), true, desk.Keep, "checks still fail (test)", []string{"test"}, nil},
		{"failing, unasked", finished(failed), false, desk.Keep, "checks still fail (test)", []string{"test"}, nil},
		{"not run, asked: the person reads why", finished(passed, notRun), true, desk.Ask, "", nil, []string{"lint"}},
		{"not run, unasked: never written on no verdict", finished(passed, notRun), false, desk.Keep, "checks could not run (lint)", nil, []string{"lint"}},
		{"failing and not run", finished(failed, notRun), true, desk.Keep, "checks still fail (test)", []string{"test"}, []string{"lint"}},
		{"cancelled", agent.Outcome{Status: agent.StatusCancelled, Checks: []tools.CheckResult{passed}}, true, desk.Keep, "the run stopped before its checks passed", nil, nil},
		{"failed run", agent.Outcome{Status: agent.StatusFailed, Err: errors.New("boom")}, false, desk.Keep, "the run stopped before its checks passed", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := desk.EndOfTurn(tc.out, tc.asks)
			if v.Do != tc.want || v.Why() != tc.why || !slices.Equal(v.Failing, tc.failing) || !slices.Equal(v.NotRun, tc.notRunNow) {
				t.Fatalf("EndOfTurn = %+v (why %q), want %v (why %q), failing %v, not run %v", v, v.Why(), tc.want, tc.why, tc.failing, tc.notRunNow)
			}
		})
	}
}

func TestHoldsForChecks(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		checks int
		want   bool
	}{{"preview", 1, true}, {"apply", 2, true}, {"plan", 1, false}, {"preview", 0, false}, {"apply", 0, false}} {
		if got := desk.HoldsForChecks(tc.mode, tc.checks); got != tc.want {
			t.Errorf("HoldsForChecks(%q, %d) = %v, want %v", tc.mode, tc.checks, got, tc.want)
		}
	}
	if desk.AsksEarlier(agent.ModePlan) || !desk.AsksEarlier("preview") || !desk.AsksEarlier("apply") {
		t.Error("AsksEarlier: a plan asks about nothing, the others do")
	}
	if desk.WritesUnasked("preview", false) || !desk.WritesUnasked("preview", true) || !desk.WritesUnasked("apply", false) {
		t.Error("WritesUnasked: only apply mode or an allow-all writes unasked")
	}
}

// The summary shows what passed and what could not run, never a failure
// (a failing turn is never asked about), with the core's check lines.
func TestCheckSummary(t *testing.T) {
	got := desk.CheckSummary([]tools.CheckResult{
		{Name: "test", Passed: true, Seconds: 1.5},
		{Name: "vet", ExitCode: 1},
		{Name: "lint", NotRun: true, Output: "could not run: sh: lint: not found\nPATH=/bin\n"},
	})
	want := "Checks on the turn's final changes:\n✓ check test passed in 1.5s\n⚠ check lint could not run: sh: lint: not found"
	if got != want {
		t.Fatalf("CheckSummary =\n%s\nwant\n%s", got, want)
	}
	if got := desk.CheckSummary(nil); got != "No configured check applies to these changes." {
		t.Fatalf("CheckSummary(nil) = %q", got)
	}
}

// Held changes: each once, in the order staged; at the end only those
// still pending; before the next run, the session's earlier pending
// changes except those kept back and those of other sessions.
func TestHeldAndEarlierPending(t *testing.T) {
	base := "one\ntwo\n"
	d, v, path := setup(t, base)
	other := strings.TrimSuffix(path, "a.txt") + "b.txt"
	src := desk.ViewSource(v, false)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "one\nTWO\n"})
	d.Stage(src, "r1", tools.StagedFile{Path: other, Base: "", Text: "new\n", Created: true})
	d.Stage(src, "r9", tools.StagedFile{Path: path, Base: base, Text: "ONE\ntwo\n"})

	var held []desk.Held
	for _, h := range []desk.Held{{"r1", other}, {"r1", path}, {"r1", other}, {"r1", "/nowhere"}} {
		held = desk.Hold(held, h)
	}
	if want := []desk.Held{{"r1", other}, {"r1", path}, {"r1", "/nowhere"}}; !slices.Equal(held, want) {
		t.Fatalf("Hold = %v, want %v", held, want)
	}
	if got, want := d.StillPending(held), []desk.Held{{"r1", other}, {"r1", path}}; !slices.Equal(got, want) {
		t.Fatalf("StillPending = %v, want %v", got, want)
	}

	sess := agent.NewSession("")
	sess.Reserve("r1")
	names := func(kept func(desk.Held) bool) []string {
		var out []string
		for _, p := range d.EarlierPending(sess, kept) {
			out = append(out, p.RunID+":"+p.Path)
		}
		slices.Sort(out)
		return out
	}
	if got, want := names(nil), []string{"r1:" + path, "r1:" + other}; !slices.Equal(got, want) {
		t.Fatalf("EarlierPending = %v, want %v (r9 is another session's)", got, want)
	}
	kept := func(h desk.Held) bool { return h == desk.Held{RunID: "r1", Path: other} }
	if got, want := names(kept), []string{"r1:" + path}; !slices.Equal(got, want) {
		t.Fatalf("EarlierPending with %s kept back = %v, want %v", other, got, want)
	}
}
