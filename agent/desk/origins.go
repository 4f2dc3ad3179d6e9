package desk

import (
	"slices"
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
	// shown is where new files are shown: origin path → the new files
	// (their store paths) shown in it.
	shown map[string]map[string]struct{}
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

// ShowNewFile places the new file at newPath in the documents its runs
// were started from: created are the proposals to create it now in review
// (none once it is decided). It returns the documents to show again: those
// it leaves, and those it is in, whose text (how many new files, which
// lines) may have changed. A run started from the new file itself does
// not show it there.
func (d *Desk) ShowNewFile(newPath string, created []proposal.Proposal) []string {
	o := &d.origins
	o.mu.Lock()
	defer o.mu.Unlock()
	want := map[string]bool{}
	for _, pr := range created {
		if r, ok := o.runs[pr.RunID]; ok && r.Path != newPath {
			want[r.Path] = true
		}
	}
	var again []string
	for origin, files := range o.shown {
		if _, in := files[newPath]; in && !want[origin] {
			delete(files, newPath)
			if len(files) == 0 {
				delete(o.shown, origin)
			}
			again = append(again, origin)
		}
	}
	for origin := range want {
		if o.shown == nil {
			o.shown = map[string]map[string]struct{}{}
		}
		if o.shown[origin] == nil {
			o.shown[origin] = map[string]struct{}{}
		}
		o.shown[origin][newPath] = struct{}{}
		again = append(again, origin)
	}
	slices.Sort(again)
	return again
}

// NewFilesShownIn returns the new files shown in the document at origin
// (ShowNewFile), sorted.
func (d *Desk) NewFilesShownIn(origin string) []string {
	o := &d.origins
	o.mu.Lock()
	defer o.mu.Unlock()
	files := make([]string, 0, len(o.shown[origin]))
	for f := range o.shown[origin] {
		files = append(files, f)
	}
	slices.Sort(files)
	return files
}
