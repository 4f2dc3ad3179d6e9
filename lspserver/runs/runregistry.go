package runs

import (
	"sync"

	"github.com/agentls/agentls/agent"
)

// The registry of active runs: agentls.cancel and
// window/workDoneProgress/cancel find runs here, and runs take their
// concurrency slot here (agent.RunSlots).

// runRegistry holds the active runs and their concurrency slots.
type runRegistry struct {
	agent.RunSlots
	mu     sync.Mutex
	runs   map[string]*run
	tokens map[string]*run
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
