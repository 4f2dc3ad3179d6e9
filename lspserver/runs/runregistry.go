package runs

import (
	"context"
	"sync"
)

// The registry of active runs: agentls.cancel and
// window/workDoneProgress/cancel find runs here, and runs take their
// concurrency slot here. At most limit runs (maxConcurrentRuns, default 4)
// work at once; later runs wait in FIFO order for a slot, and a run
// cancelled while waiting leaves the queue (a slot handed to it as it gave
// up is passed on). The limit follows the configuration of the latest run
// to ask.

// runRegistry holds the active runs and their concurrency slots.
type runRegistry struct {
	mu     sync.Mutex
	runs   map[string]*run
	tokens map[string]*run
	active int             // runs holding a slot
	limit  int             // slots, from the latest configuration
	queue  []chan struct{} // runs waiting for a slot, first first
}

func (g *runRegistry) add(r *run) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.runs == nil {
		g.runs, g.tokens = map[string]*run{}, map[string]*run{}
	}
	g.runs[r.id] = r
}

// remove forgets r: agentls.cancel and progress cancel no longer find it.
func (g *runRegistry) remove(r *run) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.runs, r.id)
	if r.token != "" {
		delete(g.tokens, r.token)
	}
}

func (g *runRegistry) get(id string) *run {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runs[id]
}

func (g *runRegistry) byToken(token string) *run {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tokens[token]
}

func (g *runRegistry) setToken(r *run, token string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.runs[r.id] == r { // not already finished
		r.token = token
		g.tokens[token] = r
	}
}

// acquire waits for a run slot (limit at once) until ctx ends. queued is
// called once, before waiting, with the number of runs holding slots. The
// returned release gives the slot back.
func (g *runRegistry) acquire(ctx context.Context, limit int, queued func(running int)) (release func(), err error) {
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
	queued(running)
	select {
	case <-ch:
		return g.release, nil
	case <-ctx.Done():
		g.mu.Lock()
		i := indexOf(g.queue, ch)
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

func (g *runRegistry) release() {
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

func indexOf(q []chan struct{}, ch chan struct{}) int {
	for i, c := range q {
		if c == ch {
			return i
		}
	}
	return -1
}
