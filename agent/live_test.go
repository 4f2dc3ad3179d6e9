package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// liveFake is a live session that records its releases.
type liveFake struct {
	Turns
	id       string
	mu       sync.Mutex
	released int
}

func (f *liveFake) Release() {
	f.mu.Lock()
	f.released++
	f.mu.Unlock()
}

func (f *liveFake) releases() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.released
}

// A second turn cancels the first and starts only once the first ended.
func TestTurnsSecondCancelsAndAwaitsFirst(t *testing.T) {
	var tr Turns
	ctx1, end1, err := tr.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Idle() {
		t.Fatal("idle with a turn in progress")
	}
	firstEnded := make(chan struct{})
	go func() {
		<-ctx1.Done() // the first turn notices the cancellation, then ends
		close(firstEnded)
		end1()
	}()
	ctx2, end2, err := tr.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-firstEnded:
	default:
		t.Fatal("the second turn began before the first ended")
	}
	if ctx1.Err() == nil || ctx2.Err() != nil {
		t.Fatalf("first turn's context %v, second's %v", ctx1.Err(), ctx2.Err())
	}
	end2()
	if !tr.Idle() {
		t.Fatal("not idle after the last turn ended")
	}
	if ctx2.Err() == nil {
		t.Fatal("an ended turn's context is not cancelled")
	}
}

// A turn that cannot wait for the one in progress fails with its context,
// and the one in progress keeps the session.
func TestTurnsBeginGivesUpWithItsContext(t *testing.T) {
	var tr Turns
	_, end1, _ := tr.Begin(context.Background())
	defer end1()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := tr.Begin(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin = %v, want context.Canceled", err)
	}
	if tr.Idle() {
		t.Fatal("the turn in progress was forgotten")
	}
}

// Wait returns after its limit when a turn ignores cancellation, and at
// once when there is none or it ended.
func TestTurnsWaitIsBounded(t *testing.T) {
	var tr Turns
	if !tr.Wait(context.Background(), time.Hour) {
		t.Fatal("Wait without a turn reported one left")
	}
	_, end, _ := tr.Begin(context.Background())
	tr.Cancel() // the turn ignores it
	if tr.Wait(context.Background(), time.Millisecond) {
		t.Fatal("Wait reported the stubborn turn ended")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if tr.Wait(ctx, time.Hour) {
		t.Fatal("Wait past its context reported the turn ended")
	}
	end()
	if !tr.Wait(context.Background(), time.Hour) {
		t.Fatal("Wait after the end reported a turn left")
	}
}

// Beyond Max, the least recently used idle session is dropped (cancelled,
// released); a busy one never is, even when it is the oldest.
func TestLiveSessionsDropLeastRecentlyUsedIdle(t *testing.T) {
	tab := &LiveSessions[*liveFake]{Max: 2, StopWait: time.Millisecond}
	busy := &liveFake{id: "busy"}
	if err := tab.Put(busy.id, busy); err != nil {
		t.Fatal(err)
	}
	_, end, _ := busy.Begin(context.Background())
	defer end()
	old := &liveFake{id: "old"}
	tab.Put(old.id, old)
	old.Turns.mu.Lock()
	old.Turns.used = time.Unix(1, 0) // long ago
	old.Turns.mu.Unlock()
	young := &liveFake{id: "young"}
	tab.Put(young.id, young)
	if _, ok := tab.Get("busy"); !ok || busy.releases() != 0 {
		t.Fatal("the busy session was dropped")
	}
	if _, ok := tab.Get("old"); ok || old.releases() != 1 {
		t.Fatalf("the least recently used idle session: held %v, released %d times", ok, old.releases())
	}
	if _, ok := tab.Get("young"); !ok || young.releases() != 0 {
		t.Fatal("the newest session was dropped")
	}
}

// A table whose sessions are all busy grows past Max rather than drop one.
func TestLiveSessionsNeverDropBusy(t *testing.T) {
	tab := &LiveSessions[*liveFake]{Max: 1, StopWait: time.Millisecond}
	var all []*liveFake
	for i := range 3 {
		f := &liveFake{id: fmt.Sprint(i)}
		tab.Put(f.id, f)
		_, end, _ := f.Begin(context.Background())
		defer end()
		all = append(all, f)
	}
	for _, f := range all {
		if _, ok := tab.Get(f.id); !ok || f.releases() != 0 {
			t.Fatalf("busy session %s dropped", f.id)
		}
	}
}

// A session put under a taken id replaces and releases the earlier one;
// Drop forgets only the session it names; Close refuses newcomers and
// cancels every turn.
func TestLiveSessionsReplaceDropClose(t *testing.T) {
	tab := &LiveSessions[*liveFake]{Max: 8, StopWait: time.Millisecond}
	a, b := &liveFake{id: "s"}, &liveFake{id: "s"}
	tab.Put("s", a)
	tab.Put("s", b)
	if got, _ := tab.Get("s"); got != b || a.releases() != 1 {
		t.Fatalf("replace: held %p (want %p), earlier released %d times", got, b, a.releases())
	}
	tab.Drop(context.Background(), "s", a) // stale: b keeps the id
	if got, _ := tab.Get("s"); got != b {
		t.Fatal("dropping a replaced session forgot its successor")
	}
	ctx, end, _ := b.Begin(context.Background())
	held := tab.Close()
	if !slices.Equal(held, []*liveFake{b}) || ctx.Err() == nil {
		t.Fatalf("Close returned %v, turn context %v", held, ctx.Err())
	}
	end()
	if err := tab.Put("t", &liveFake{}); !errors.Is(err, ErrClosing) {
		t.Fatalf("Put after Close = %v", err)
	}
	tab.Drop(context.Background(), "s", b)
	if _, ok := tab.Get("s"); ok || b.releases() != 1 {
		t.Fatal("Drop did not forget and release its session")
	}
}

// StateDir: "-" is none, "" the default in env, else the given dir.
func TestStateDir(t *testing.T) {
	env := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return "/xdg"
		}
		return ""
	}
	for _, tc := range []struct {
		setting string
		env     func(string) string
		want    string
		err     bool
	}{
		{NoState, env, "", false},
		{"", env, "/xdg/agentls", false},
		{"/given", env, "/given", false},
		{"", func(string) string { return "" }, "", true},
	} {
		got, err := StateDir(tc.setting, tc.env)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("StateDir(%q) = %q, %v; want %q (error %v)", tc.setting, got, err, tc.want, tc.err)
		}
	}
}
