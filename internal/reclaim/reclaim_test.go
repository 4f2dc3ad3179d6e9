package reclaim

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
)

func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }

// owner stands for a server: it runs the goroutine Memory asks for and
// stops it at the end.
type owner struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	names  []string
}

func newOwner(t *testing.T) *owner {
	o := &owner{}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() { o.cancel(); o.wg.Wait() })
	return o
}

func (o *owner) Go(name string, fn func(context.Context)) {
	o.names = append(o.names, name)
	o.wg.Add(1)
	go func() { defer o.wg.Done(); fn(o.ctx) }()
}

func newMemory(o *owner) (*Memory, chan struct{}) {
	frees := make(chan struct{}, 16)
	r := New(o.Go)
	r.quiet = time.Millisecond
	r.free = func() { frees <- struct{}{} }
	return r, frees
}

// Below the threshold nothing runs: no goroutine, no collection.
func TestBelowThresholdStartsNothing(t *testing.T) {
	o := newOwner(t)
	r, _ := newMemory(o)
	r.Released(Threshold - 1)
	r.Released(0)
	r.Released(-5)
	if len(o.names) != 0 {
		t.Fatalf("goroutine started below the threshold: %v", o.names)
	}
}

// Past the threshold one goroutine starts and collects; the count starts
// again from zero, and a second threshold's worth collects again on the
// same goroutine.
func TestCollectsOncePastThreshold(t *testing.T) {
	o := newOwner(t)
	r, frees := newMemory(o)
	r.Released(Threshold / 2)
	r.Released(Threshold / 2)
	select {
	case <-frees:
	case <-time.After(20 * time.Second):
		t.Fatal("no collection past the threshold")
	}
	r.mu.Lock()
	freed := r.freed
	r.mu.Unlock()
	if freed != 0 {
		t.Fatalf("count not reset after a collection: %d", freed)
	}
	r.Released(Threshold)
	select {
	case <-frees:
	case <-time.After(20 * time.Second):
		t.Fatal("no second collection")
	}
	if len(o.names) != 1 {
		t.Fatalf("goroutines started: %v, want one", o.names)
	}
}
