package runs

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/core"
)

// histIndex maps files to the runs whose changes landed in them and can
// still be reverted, for the code actions "Agent: Revert run …" and
// "Agent: Open report of run …" on the lines a run changed (the way eglot
// and other plugin-less clients reach them). It is built in the background
// from the snapshots of the workspace's sessions' runs, and rebuilt after a
// change lands or a run is reverted here, or when the snapshot directory
// changed (a change landed through agentls acp or agentls run --apply, a
// revert by agentls revert); code actions never wait for it.
type histIndex struct {
	mu       sync.Mutex
	building bool
	stale    bool // a rebuild is due
	built    bool
	byPath   map[string][]landedRun
	// dirStamp is the snapshot directory's modification time when the
	// last build began (a snapshot is written by rename, which changes it).
	dirStamp time.Time
}

// landedRun is one run's landed change to a file.
type landedRun struct {
	runID string
	after string   // the file as the run left it
	lines [][2]int // 0-based line spans [start, end] the run changed, in after
}

// maxIndexedRuns bounds the snapshots read to build the index.
const maxIndexedRuns = 50

// forget marks the index out of date; the next lookup rebuilds it.
func (h *histIndex) forget() {
	h.mu.Lock()
	h.stale = true
	h.mu.Unlock()
}

// landedIn returns the runs that changed path, as of the last build; it
// starts a (re)build in the background when one is due.
func (rs *Runs) landedIn(path string) []landedRun {
	h := &rs.hist
	stamp := rs.revertsStamp()
	h.mu.Lock()
	defer h.mu.Unlock()
	if (!h.built || h.stale || !stamp.Equal(h.dirStamp)) && !h.building {
		h.building, h.stale, h.dirStamp = true, false, stamp
		rs.core.Go("revert index", func(context.Context) { rs.buildHistIndex() })
	}
	return h.byPath[path]
}

// revertsStamp is the snapshot directory's modification time (zero when
// there is none).
func (rs *Runs) revertsStamp() time.Time {
	st := rs.reverts()
	if st == nil {
		return time.Time{}
	}
	fi, err := os.Stat(st.Dir())
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

func (rs *Runs) buildHistIndex() {
	byPath := map[string][]landedRun{}
	if st := rs.reverts(); st != nil {
		var runIDs []string
		for _, sess := range rs.sessions().CatchUp() { // runs of sessions continued elsewhere (agentls acp)
			runIDs = append(runIDs, sess.Info().Runs...)
		}
		if len(runIDs) > maxIndexedRuns {
			runIDs = runIDs[len(runIDs)-maxIndexedRuns:]
		}
		for _, id := range runIDs {
			snap, err := st.Load(id)
			if err != nil || snap.Reverted {
				continue
			}
			for _, f := range snap.Files {
				byPath[f.Path] = append(byPath[f.Path], landedRun{runID: id, after: f.After, lines: changedLines(f.Before, f.After)})
			}
		}
	}
	h := &rs.hist
	h.mu.Lock()
	h.byPath, h.built, h.building = byPath, true, false
	h.mu.Unlock()
}

// changedLines are the line spans of after that differ from before (an
// insertion's or deletion's span is the line it sits on).
func changedLines(before, after string) [][2]int {
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

// historyActions are the revert and report actions for the runs that
// changed the lines of r in path.
func (rs *Runs) historyActions(path string, r protocol.Range, only []protocol.CodeActionKind) []protocol.CommandOrCodeAction {
	if !kindWanted(only, protocol.CodeActionKindRefactorRewrite) {
		return nil
	}
	runs := rs.landedIn(path)
	if len(runs) == 0 {
		return nil
	}
	c, err := rs.currentText(path)
	if err != nil || !c.Exists {
		return nil
	}
	cur := c.Text
	var out []protocol.CommandOrCodeAction
	for i := len(runs) - 1; i >= 0; i-- { // newest run first
		lr := runs[i]
		if cur == lr.after && !touches(lr.lines, int(r.Start.Line), int(r.End.Line)) {
			continue // unchanged since: only on the lines the run changed
		}
		rev, _ := json.Marshal(RevertArgs{RunID: lr.runID})
		rep, _ := json.Marshal(ReportArgs{RunID: lr.runID})
		t1 := "Agent: Revert run " + lr.runID
		t2 := "Agent: Open report of run " + lr.runID
		out = append(out,
			&protocol.CodeAction{Title: t1, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite), Command: protocol.Command{Title: t1, Command: CommandRevert, Arguments: []protocol.LSPAny{rev}}},
			&protocol.CodeAction{Title: t2, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite), Command: protocol.Command{Title: t2, Command: CommandOpenReport, Arguments: []protocol.LSPAny{rep}}})
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
