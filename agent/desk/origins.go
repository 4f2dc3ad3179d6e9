package desk

import (
	"sync"

	"github.com/agentls/agentls/agent/proposal"
)

// Where runs were started: a face that shows a run's new files beside the
// text the user started it from (the LSP face's companion diagnostics,
// for clients that cannot show a diagnostic in an empty document) asks
// here.

// Origin is where a run was started: a store path and a 0-based line.
type Origin struct {
	Path string
	Line uint32
}

// maxOrigins bounds the origins kept; past it, runs with nothing left in
// review are forgotten, which bounds them by the runs still in review.
const maxOrigins = 64

type origins struct {
	mu   sync.Mutex
	runs map[string]Origin
}

// SetOrigin records that runID was started from the document at path at
// line.
func (d *Desk) SetOrigin(runID, path string, line uint32) {
	o := &d.origins
	o.mu.Lock()
	if o.runs == nil {
		o.runs = map[string]Origin{}
	}
	o.runs[runID] = Origin{Path: path, Line: line}
	var ids []string
	if len(o.runs) > maxOrigins {
		for id := range o.runs {
			if id != runID {
				ids = append(ids, id)
			}
		}
	}
	o.mu.Unlock()
	var gone []string
	for _, id := range ids { // outside the lock: Select takes the store's
		if len(d.store.Select(proposal.Filter{RunID: id})) == 0 {
			gone = append(gone, id)
		}
	}
	o.mu.Lock()
	for _, id := range gone {
		delete(o.runs, id)
	}
	o.mu.Unlock()
}

// Origin returns where runID was started.
func (d *Desk) Origin(runID string) (Origin, bool) {
	o := &d.origins
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.runs[runID]
	return r, ok
}

// StartedFrom returns the runs started from the document at path, with
// their lines.
func (d *Desk) StartedFrom(path string) map[string]uint32 {
	o := &d.origins
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]uint32{}
	for id, r := range o.runs {
		if r.Path == path {
			out[id] = r.Line
		}
	}
	return out
}
