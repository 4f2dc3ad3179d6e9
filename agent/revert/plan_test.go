package revert

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanRun: one rule for every face: a file changed since only outside
// the run's lines is reverted, a file gone or too large is left with the
// reason, and a reverted run is not reverted twice.
func TestPlanRun(t *testing.T) {
	st := NewStore(filepath.Join(t.TempDir(), "reverts"))
	if _, err := st.Open("r1"); !errors.Is(err, ErrNothing) {
		t.Fatalf("Open of an unknown run = %v, want ErrNothing", err)
	}
	var nilStore *Store
	if kept, err := nilStore.Keep("r1", "s", File{Path: "/w/a", Before: "a", After: "b"}); kept || err != nil {
		t.Fatalf("a nil store kept a change (%v, %v)", kept, err)
	}
	if kept, err := st.Keep("r1", "s", File{Path: "/w/same", Before: "x", After: "x"}); kept || err != nil {
		t.Fatalf("a change that changed nothing was kept (%v, %v)", kept, err)
	}
	for _, f := range []File{
		{Path: "/w/a", Before: "one\ntwo\nthree\n", After: "one\nTWO\nthree\n"},
		{Path: "/w/gone", Before: "x\n", After: "y\n"},
	} {
		if kept, err := st.Keep("r1", "s", f); !kept || err != nil {
			t.Fatalf("Keep(%s) = %v, %v", f.Path, kept, err)
		}
	}
	snap, err := st.Open("r1")
	if err != nil {
		t.Fatal(err)
	}
	snap.TooLarge = []string{"/w/big"}
	plan := PlanRun(snap, func(path string) (Current, error) {
		switch path {
		case "/w/a": // the user added a line after the run's
			return Current{Text: "one\nTWO\nthree\nfour\n", Exists: true}, nil
		}
		return Current{}, nil
	})
	if len(plan.Changes) != 1 || plan.Changes[0].Text != "one\ntwo\nthree\nfour\n" || plan.Changes[0].From.Text != "one\nTWO\nthree\nfour\n" {
		t.Fatalf("changes = %+v, want a.txt reverted with the user's line kept", plan.Changes)
	}
	sum := plan.Summary()
	for _, want := range []string{"/w/a: reverted", "/w/big: left alone; the change was too large", "/w/gone: left alone; the file no longer exists"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if err := st.MarkReverted("r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Open("r1"); !errors.Is(err, ErrAlreadyReverted) {
		t.Fatalf("Open of a reverted run = %v, want ErrAlreadyReverted", err)
	}
}
