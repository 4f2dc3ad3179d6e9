package agent

import (
	"context"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
)

// TestRunSlots: at most limit runs at once, waiters served first come
// first served, a waiter that gives up leaves the queue, and no newcomer
// passes a waiting run.
func TestRunSlots(t *testing.T) {
	var g RunSlots
	ctx := context.Background()
	r1, err := g.Acquire(ctx, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	queued := make(chan int, 3)
	wait := func(n int, ctx context.Context) {
		rel, err := g.Acquire(ctx, 1, func(running int) { queued <- running })
		if err != nil {
			order <- -n
			return
		}
		order <- n
		rel()
	}
	go wait(2, ctx)
	if running := <-queued; running != 1 {
		t.Fatalf("the second run saw %d running, want 1", running)
	}
	gone, giveUp := context.WithCancel(ctx)
	go wait(3, gone)
	<-queued
	go wait(4, ctx)
	<-queued
	giveUp()
	if got := <-order; got != -3 {
		t.Fatalf("the run that gave up got %d, want -3", got)
	}
	r1()
	for _, want := range []int{2, 4} {
		select {
		case got := <-order:
			if got != want {
				t.Fatalf("run %d got the slot, want %d (first come, first served)", got, want)
			}
		case <-time.After(testwait.Limit):
			t.Fatalf("run %d never got a slot", want)
		}
	}
	// All slots are free again.
	rel, err := g.Acquire(ctx, 1, func(int) { t.Error("waited with every slot free") })
	if err != nil {
		t.Fatal(err)
	}
	rel()
}
