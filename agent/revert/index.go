package revert

import (
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aymanbagabas/go-udiff"
)

// Index maps files to the runs whose changes landed in them and can still
// be reverted, so a face can offer "revert run …" on the lines a run
// changed. It is built in the background from the snapshots of the runs
// Runs names, and rebuilt after Forget (a change landed or a run was
// reverted here) or when the snapshot directory changed (a change landed
// through another agentls, a revert by `agentls revert`); a lookup never
// waits for it.
type Index struct {
	// Store is the snapshot store (nil: nothing can be reverted).
	Store func() *Store
	// Runs lists the runs to index, oldest first (the workspace's
	// sessions' runs); the newest MaxIndexedRuns are read.
	Runs func() []string
	// Go runs the build in the background (a face's tracked goroutine).
	Go func(build func())

	mu       sync.Mutex
	building bool
	stale    bool // a rebuild is due
	built    bool
	byPath   map[string][]Landed
	// dirStamp is the snapshot directory's modification time when the
	// last build began (a snapshot is written by rename, which changes it).
	dirStamp time.Time
}

// Landed is one run's landed change to a file.
type Landed struct {
	RunID string
	After string   // the file as the run left it
	Lines [][2]int // 0-based line spans [start, end] the run changed, in After
}

// MaxIndexedRuns bounds the snapshots read to build the index.
const MaxIndexedRuns = 50

// Forget marks the index out of date; the next lookup rebuilds it.
func (x *Index) Forget() {
	x.mu.Lock()
	x.stale = true
	x.mu.Unlock()
}

// LandedIn returns the runs that changed path, as of the last build; it
// starts a (re)build in the background when one is due.
func (x *Index) LandedIn(path string) []Landed {
	stamp := x.stamp()
	x.mu.Lock()
	defer x.mu.Unlock()
	if (!x.built || x.stale || !stamp.Equal(x.dirStamp)) && !x.building {
		x.building, x.stale, x.dirStamp = true, false, stamp
		x.Go(x.build)
	}
	return x.byPath[path]
}

// stamp is the snapshot directory's modification time (zero when there
// is none).
func (x *Index) stamp() time.Time {
	st := x.Store()
	if st == nil {
		return time.Time{}
	}
	fi, err := os.Stat(st.Dir())
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

func (x *Index) build() {
	byPath := map[string][]Landed{}
	if st := x.Store(); st != nil {
		runIDs := x.Runs()
		if len(runIDs) > MaxIndexedRuns {
			runIDs = runIDs[len(runIDs)-MaxIndexedRuns:]
		}
		for _, id := range runIDs {
			snap, err := st.Load(id)
			if err != nil || snap.Reverted {
				continue
			}
			for _, f := range snap.Files {
				byPath[f.Path] = append(byPath[f.Path], Landed{RunID: id, After: f.After, Lines: ChangedLines(f.Before, f.After)})
			}
		}
	}
	x.mu.Lock()
	x.byPath, x.built, x.building = byPath, true, false
	x.mu.Unlock()
}

// ChangedLines are the line spans of after that differ from before (an
// insertion's or deletion's span is the line it sits on).
func ChangedLines(before, after string) [][2]int {
	var out [][2]int
	delta := 0
	for _, e := range udiff.Lines(before, after) {
		at := e.Start + delta // where the edit's new text starts in after
		first := strings.Count(after[:min(at, len(after))], "\n")
		last := first
		if n := strings.Count(e.New, "\n"); n > 0 {
			last = first + n - 1
		}
		out = append(out, [2]int{first, last})
		delta += len(e.New) - (e.End - e.Start)
	}
	return out
}
