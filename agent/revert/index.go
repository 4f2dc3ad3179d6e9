package revert

import (
	"hash/maphash"
	"os"
	"slices"
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
	// statMu guards the last stat of the snapshot directory (statStamp,
	// taken at statAt): lookups run on every code action request, and a
	// stat each was a tenth of the handler's cost.
	statMu    sync.Mutex
	statAt    time.Time
	statStamp time.Time
	// recent are the runs Landed put in byPath ahead of a build, with the
	// landing's number; a build that began before a landing keeps it.
	recent   map[string]landing
	landings int // Landed calls so far
	buildAt  int // landings when the running build began
	// now remembers, per run and file, where its lines stand in the text
	// last asked about (Now): code actions on a document that did not
	// change since do not diff every landed run again. Emptied whenever
	// byPath is replaced.
	now  map[nowKey]nowLines
	seed maphash.Seed
	// gen changes with byPath and whenever a rebuild is due (Gen).
	gen uint64
}

type nowKey struct{ run, path string }

type nowLines struct {
	sum   uint64 // of the text the lines were mapped into
	lines [][2]int
}

type landing struct {
	n  int
	ls []Landed // one per file
}

// Landed is one run's landed change to a file.
type Landed struct {
	RunID string
	Path  string
	After string   // the file as the run left it
	Lines [][2]int // 0-based line spans [start, end] the run changed, in After
}

// MaxIndexedRuns bounds the snapshots read to build the index.
const MaxIndexedRuns = 50

// Forget marks the index out of date; the next lookup rebuilds it.
func (x *Index) Forget() {
	x.mu.Lock()
	x.stale, x.recent = true, nil
	x.gen++
	x.mu.Unlock()
}

// Landed puts runID's landed changes in the index at once (a lookup right
// after an accept offers the run's revert, where a rebuild in the
// background would show it only later) and marks the index out of date.
func (x *Index) Landed(runID string) {
	st := x.Store()
	if st == nil {
		return
	}
	snap, err := st.Load(runID)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.stale = true
	x.gen++
	if err != nil || snap.Reverted {
		return
	}
	if x.recent == nil {
		x.recent = map[string]landing{}
	}
	x.landings++
	ls := landedOf(snap)
	x.recent[runID] = landing{n: x.landings, ls: ls}
	x.byPath, x.now = merge(x.byPath, runID, ls), nil
}

// landedOf is a snapshot's landed changes, one per file.
func landedOf(snap Snapshot) []Landed {
	ls := make([]Landed, 0, len(snap.Files))
	for _, f := range snap.Files {
		ls = append(ls, Landed{RunID: snap.RunID, Path: f.Path, After: f.After, Lines: ChangedLines(f.Before, f.After)})
	}
	return ls
}

// merge returns byPath with run's entries replaced by ls (newest last).
func merge(byPath map[string][]Landed, run string, ls []Landed) map[string][]Landed {
	out := make(map[string][]Landed, len(byPath)+len(ls))
	for p, l := range byPath {
		out[p] = slices.DeleteFunc(slices.Clone(l), func(e Landed) bool { return e.RunID == run })
	}
	for _, l := range ls {
		out[l.Path] = append(out[l.Path], l)
	}
	return out
}

// LandedIn returns the runs that changed path, oldest landing first, as
// of the last build; it
// starts a (re)build in the background when one is due.
func (x *Index) LandedIn(path string) []Landed {
	stamp := x.stamp()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.buildIfDue(stamp)
	return x.byPath[path]
}

// Gen is a number that changes whenever what LandedIn (and so Now, for
// the same text) answers may have changed since it was read: a cache of
// answers built from the index keeps one only while Gen stays the same.
// Like LandedIn, it starts a (re)build when one is due (the snapshot
// directory changed), whose end changes it again.
func (x *Index) Gen() uint64 {
	stamp := x.stamp()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.buildIfDue(stamp)
	return x.gen
}

// buildIfDue starts a build in the background when the index was never
// built, is out of date, or the snapshot directory changed (stamp), unless
// one runs. x.mu must be held.
func (x *Index) buildIfDue(stamp time.Time) {
	if (!x.built || x.stale || !stamp.Equal(x.dirStamp)) && !x.building {
		x.building, x.stale, x.dirStamp, x.buildAt = true, false, stamp, x.landings
		x.gen++
		x.Go(x.build)
	}
}

// stampTTL is how long a stat of the snapshot directory is trusted. It
// only notices changes made by another agentls (this one's own landings
// and reverts go through Landed and Forget at once), which a code action
// list may show a moment late.
const stampTTL = 250 * time.Millisecond

// stamp is the snapshot directory's modification time (zero when there
// is none), as of a stat at most stampTTL old.
func (x *Index) stamp() time.Time {
	now := time.Now()
	x.statMu.Lock()
	defer x.statMu.Unlock()
	if !x.statAt.IsZero() && now.Sub(x.statAt) < stampTTL {
		return x.statStamp
	}
	x.statAt, x.statStamp = now, time.Time{}
	if st := x.Store(); st != nil {
		if fi, err := os.Stat(st.Dir()); err == nil {
			x.statStamp = fi.ModTime()
		}
	}
	return x.statStamp
}

func (x *Index) build() {
	byPath := map[string][]Landed{}
	if st := x.Store(); st != nil {
		runIDs := x.Runs()
		if len(runIDs) > MaxIndexedRuns {
			runIDs = runIDs[len(runIDs)-MaxIndexedRuns:]
		}
		var snaps []Snapshot
		for _, id := range runIDs {
			snap, err := st.Load(id)
			if err != nil || snap.Reverted {
				continue
			}
			snaps = append(snaps, snap)
		}
		// Oldest landing first: the runs come session by session.
		slices.SortStableFunc(snaps, func(a, b Snapshot) int { return a.Updated.Compare(b.Updated) })
		for _, snap := range snaps {
			for _, l := range landedOf(snap) {
				byPath[l.Path] = append(byPath[l.Path], l)
			}
		}
	}
	x.mu.Lock()
	for run, l := range x.recent {
		if l.n <= x.buildAt {
			delete(x.recent, run) // the build read its snapshot
		} else {
			byPath = merge(byPath, run, l.ls)
		}
	}
	x.byPath, x.built, x.building, x.now = byPath, true, false, nil
	x.gen++
	x.mu.Unlock()
}

// Placed is a landed run with the lines it changed as they stand now.
type Placed struct {
	Landed
	Now [][2]int
}

// Now returns the runs that changed path (LandedIn), each with its changed
// lines followed into the file's text now (MapLines), remembered until the
// text or the index changes. read gives the text, and is called only when
// a run changed path (most files: nothing is read); false: no file, no runs.
func (x *Index) Now(path string, read func() (string, bool)) []Placed {
	runs := x.LandedIn(path)
	if len(runs) == 0 {
		return nil
	}
	cur, ok := read()
	if !ok {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.now == nil {
		x.now = map[nowKey]nowLines{}
		x.seed = maphash.MakeSeed()
	}
	sum := maphash.String(x.seed, cur)
	out := make([]Placed, len(runs))
	for i, l := range runs {
		k := nowKey{l.RunID, l.Path}
		m, ok := x.now[k]
		if !ok || m.sum != sum {
			m = nowLines{sum: sum, lines: MapLines(l.After, cur, l.Lines)}
			x.now[k] = m
		}
		out[i] = Placed{Landed: l, Now: m.lines}
	}
	return out
}

// MaxOffered bounds the runs offered on one line: a menu that grows with
// every run buries the actions the user came for.
const MaxOffered = 2

// Offered are the runs to offer a revert of on lines from..to (0-based,
// inclusive) of path: the newest MaxOffered whose changed lines, where
// they stand now (Now, with read), touch those lines; newest first.
func (x *Index) Offered(path string, from, to int, read func() (string, bool)) []string {
	var out []string
	runs := x.Now(path, read)
	for i := len(runs) - 1; i >= 0 && len(out) < MaxOffered; i-- {
		if touches(runs[i].Now, from, to) {
			out = append(out, runs[i].RunID)
		}
	}
	return out
}

func touches(spans [][2]int, from, to int) bool {
	for _, s := range spans {
		if from <= s[1] && s[0] <= to {
			return true
		}
	}
	return false
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

// MapLines follows the line spans of after into cur, the file's text now:
// the lines of a span that are still there, where they are now. A line a
// later edit replaced is gone (the later change owns it), so a run's
// revert is offered only where its own lines still are.
func MapLines(after, cur string, spans [][2]int) [][2]int {
	if after == cur {
		return spans
	}
	type cut struct{ from, to, delta int } // after's lines [from, to) replaced; delta applies from `to` on
	var cuts []cut
	delta := 0
	for _, e := range udiff.Lines(after, cur) {
		from := strings.Count(after[:e.Start], "\n")
		to := from + lineCount(after[e.Start:e.End])
		delta += lineCount(e.New) - (to - from)
		cuts = append(cuts, cut{from, to, delta})
	}
	var out [][2]int
	for _, s := range spans {
		for l := s[0]; l <= s[1]; l++ {
			at, d, gone := l, 0, false
			for _, c := range cuts {
				if l < c.from {
					break
				}
				if l < c.to {
					gone = true
					break
				}
				d = c.delta
			}
			if gone {
				continue
			}
			at += d
			if n := len(out); n > 0 && out[n-1][1] == at-1 {
				out[n-1][1] = at
			} else {
				out = append(out, [2]int{at, at})
			}
		}
	}
	return out
}

// lineCount is the number of lines s spans (a last line without its
// newline counts).
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
