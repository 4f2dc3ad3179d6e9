package agent

import (
	"context"
	"sync"
)

// RunSlots bound the agent runs working at once in one face's server
// (maxConcurrentRuns, default 4): later runs wait in order of arrival, a
// newcomer never passes a waiting run, and a run that gives up while
// waiting leaves the queue (a slot handed to it as it gave up is passed
// on). The limit follows the configuration of the latest run to ask.
type RunSlots struct {
	mu     sync.Mutex
	active int             // runs holding a slot
	limit  int             // slots, from the latest configuration
	queue  []chan struct{} // runs waiting for a slot, first first
}

// Acquire waits for a slot (limit at once, at least one) until ctx ends.
// queued, when set, is called once before waiting with the number of runs
// holding slots. The returned release gives the slot back.
func (g *RunSlots) Acquire(ctx context.Context, limit int, queued func(running int)) (release func(), err error) {
	g.mu.Lock()
	g.limit = max(limit, 1)
	if g.active < g.limit && len(g.queue) == 0 {
		g.active++
		g.mu.Unlock()
		return g.release, nil
	}
	ch := make(chan struct{})
	g.queue = append(g.queue, ch)
	running := g.active
	g.mu.Unlock()
	if queued != nil {
		queued(running)
	}
	select {
	case <-ch:
		return g.release, nil
	case <-ctx.Done():
		g.mu.Lock()
		i := -1
		for j, c := range g.queue {
			if c == ch {
				i = j
				break
			}
		}
		if i >= 0 {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
		}
		g.mu.Unlock()
		if i < 0 { // the slot was handed over as we gave up: pass it on
			g.release()
		}
		return nil, ctx.Err()
	}
}

func (g *RunSlots) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	for len(g.queue) > 0 && g.active < g.limit {
		ch := g.queue[0]
		g.queue = g.queue[1:]
		g.active++
		close(ch)
	}
}
