package agent

import (
	"context"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/config"
)

// Hosting a run: between a run being prepared and its end being shown,
// every long-lived face took the same steps and wrote them out itself:
// wait for a run slot (maxConcurrentRuns), wait for the MCP servers within
// mcp.startupTimeoutSeconds, execute, give the slot back. Take and
// Seat.Execute are those steps once; the face supplies callbacks that only
// show them (progress, session/update) and keeps its own end (messages,
// stop reasons). A face that must do more between the wait and the
// execution (ACP asks about earlier changes and prepares the run only
// once it holds its slot) calls the two halves itself; Host is both for a
// run prepared before it waits.

// Seating is what a run waits for before it executes, and how the face
// shows the waits.
type Seating struct {
	// Slots bound the runs of the face working at once; nil: no bound
	// (one run per process, the CLI).
	Slots *RunSlots
	// Config gives the bounds: maxConcurrentRuns and
	// mcp.startupTimeoutSeconds.
	Config config.Config
	// Queued, when set, is told once that the run waits for a slot, with
	// the number of runs holding one.
	Queued func(running int)
	// AwaitMCP, when set, waits (at most bound; 0: not at all) for the
	// MCP servers the run may use, showing what it waits for as it likes.
	AwaitMCP func(ctx context.Context, bound time.Duration)
}

// Seat is a run's hold on its slot, taken by Take and given back by
// Execute or Release.
type Seat struct{ release func() }

// Take waits for a slot, then for the MCP servers. Its error is ctx's
// when the run was cancelled while queued (the run never executes and
// holds no slot); a cancel during the MCP wait still seats the run, and
// Execute ends it at once as cancelled, as the run itself would.
func Take(ctx context.Context, s Seating) (*Seat, error) {
	seat := &Seat{}
	if s.Slots != nil {
		release, err := s.Slots.Acquire(ctx, s.Config.MaxConcurrentRuns, s.Queued)
		if err != nil {
			return nil, err
		}
		seat.release = sync.OnceFunc(release)
	}
	if s.AwaitMCP != nil {
		s.AwaitMCP(ctx, time.Duration(s.Config.MCP.StartupTimeoutSeconds)*time.Second)
	}
	return seat, nil
}

// Release gives the slot back; Execute does it itself. It is safe to call
// more than once, and on a nil Seat.
func (s *Seat) Release() {
	if s != nil && s.release != nil {
		s.release()
	}
}

// Hosted is the end of a hosted run: its outcome and the files it left
// staged (what the face reports as pending or hands over to review).
type Hosted struct {
	Outcome
	Pending []string
	// Executed is false for a run cancelled while queued: it has nothing
	// to report but that.
	Executed bool
}

// Execute runs r in the seat and gives the slot back as soon as the run
// stops working, before the face shows its end: a queued run need not
// wait for another's messages.
func (s *Seat) Execute(ctx context.Context, r *SessionRun) Hosted {
	defer s.Release()
	out := r.Execute(ctx)
	return Hosted{Outcome: out, Pending: r.Env().Changes.Files(), Executed: true}
}

// Host takes the seat of a prepared run and executes it; running, when
// set, is called just before the execution (the face's "running" and
// whatever it builds on the run's Env). A run cancelled while queued
// ends cancelled without executing, and r is closed.
func Host(ctx context.Context, r *SessionRun, s Seating, running func()) Hosted {
	seat, err := Take(ctx, s)
	if err != nil {
		r.Close()
		return Hosted{Outcome: Outcome{RunID: r.ID(), Status: StatusCancelled}}
	}
	if running != nil {
		running()
	}
	return seat.Execute(ctx, r)
}
