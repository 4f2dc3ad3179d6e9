package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRunTableReservesTheSession: a session takes one run at a time, the
// refusal names the run in progress, and a run that gave up (Done) frees
// the session and cancels its context.
func TestRunTableReservesTheSession(t *testing.T) {
	var tab RunTable
	sess := NewSession("")
	r1, ctx1, err := tab.Begin(context.Background(), sess)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Active() != r1.ID || !sess.HasRun(r1.ID) {
		t.Fatalf("session active %q, want the new run %q", sess.Active(), r1.ID)
	}
	_, _, err = tab.Begin(context.Background(), sess)
	var busy *BusyError
	if !errors.Is(err, ErrSessionBusy) || !errors.As(err, &busy) || busy.Run != r1.ID || !strings.Contains(err.Error(), r1.ID) {
		t.Fatalf("second Begin = %v, want busy with run %s", err, r1.ID)
	}
	if tab.Get(r1.ID) != nil || tab.Cancel(r1.ID) {
		t.Fatal("a run not yet added can be found or cancelled")
	}
	r1.Done()
	if ctx1.Err() == nil {
		t.Fatal("Done left the run's context alive")
	}
	r2, _, err := tab.Begin(context.Background(), sess)
	if err != nil || r2.ID == r1.ID {
		t.Fatalf("Begin after Done = %v, %v", r2, err)
	}
}

// TestRunTableCancel: a run in progress is cancelled once by id or by its
// alias; a finished one is no longer found, nor its alias.
func TestRunTableCancel(t *testing.T) {
	var tab RunTable
	sess := NewSession("")
	r, ctx, err := tab.Begin(context.Background(), sess)
	if err != nil {
		t.Fatal(err)
	}
	tab.Alias(r, "early")
	tab.Add(r)
	if tab.ByAlias("early") != nil {
		t.Fatal("an alias given before the run was added was kept")
	}
	tab.Alias(r, "tok")
	if tab.Get(r.ID) != r || tab.ByAlias("tok") != r {
		t.Fatal("the run is not found by id and alias")
	}
	if tab.Cancel("unknown") {
		t.Fatal("cancelled an unknown run")
	}
	if !tab.ByAlias("tok").Stop() || ctx.Err() == nil {
		t.Fatal("Stop by alias did not cancel the run")
	}
	if tab.Cancel(r.ID) {
		t.Fatal("a run was cancelled twice")
	}
	tab.Remove(r)
	if tab.Get(r.ID) != nil || tab.ByAlias("tok") != nil {
		t.Fatal("a finished run is still found")
	}
	tab.Alias(r, "late")
	if tab.ByAlias("late") != nil {
		t.Fatal("a finished run took an alias")
	}
}

// TestRunTableSessionOf: the session of a run in progress comes from the
// table, that of a finished run from the sessions that ran it.
func TestRunTableSessionOf(t *testing.T) {
	var tab RunTable
	var sessions Sessions
	sess, err := sessions.Get("")
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := tab.Begin(context.Background(), NewSession(""))
	if err != nil {
		t.Fatal(err)
	}
	tab.Add(r)
	if got := tab.SessionOf(r.ID, &sessions); got != r.Session {
		t.Fatalf("SessionOf(running) = %v, want the run's", got)
	}
	r2, _, err := tab.Begin(context.Background(), sess)
	if err != nil {
		t.Fatal(err)
	}
	r2.Done()
	if got := tab.SessionOf(r2.ID, &sessions); got != sess {
		t.Fatalf("SessionOf(finished) = %v, want the session that ran it", got)
	}
	if tab.SessionOf(r2.ID, nil) != nil || tab.SessionOf("nope", &sessions) != nil {
		t.Fatal("SessionOf found a session it cannot know")
	}
}
