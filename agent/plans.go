package agent

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/statedir"
)

// Plans are the finished plan-mode runs (ModePlan) that await the user's
// approval, oldest first. Approving one continues its session with a run
// that carries it out (CarryOutPrompt). Plans are also written to the
// state directory (plans/<run>.json, the newest MaxPlansWaiting kept) and
// read back when a server starts, so a plan survives an editor restart
// like its session; taking a plan removes its file, so no two servers on
// one workspace approve a plan twice.
type Plans struct {
	// Dir is where plans are written; "" (or a nil func) keeps them in
	// memory only. It is read on each use: the state directory follows
	// the configuration.
	Dir func() string
	Log *slog.Logger

	mu          sync.Mutex
	plans       []WaitingPlan
	restoreOnce sync.Once
}

// WaitingPlan is one plan awaiting approval.
type WaitingPlan struct {
	RunID, SessionID, Plan string
	// File is the plan's file in the state directory, "" when not written.
	File string
}

// CarryOutPrompt starts the run that carries out an approved plan, which
// follows it in full: the session's history may have been compacted.
const CarryOutPrompt = "The user approved your plan. Carry it out now, step by step, keeping your todo list up to date. The plan:\n\n"

// MaxPlansWaiting bounds the plans kept for approval (oldest dropped).
const MaxPlansWaiting = 20

// maxPlanFileBytes bounds a plan file read back (a plan is a model answer,
// which the transcript bounds far lower).
const maxPlanFileBytes = 4 << 20

// savedPlan is a plan's file.
type savedPlan struct {
	RunID     string `json:"runId"`
	SessionID string `json:"sessionId"`
	Plan      string `json:"plan"`
}

func (b *Plans) dir() string {
	if b.Dir == nil {
		return ""
	}
	return b.Dir()
}

func (b *Plans) log() *slog.Logger {
	if b.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return b.Log
}

// Finished records the answer of a finished plan run of sessionID for
// approval; false when there is no plan (an empty answer).
func (b *Plans) Finished(runID, sessionID, answer string) bool {
	plan := strings.TrimSpace(answer)
	if plan == "" {
		return false
	}
	b.Wait(WaitingPlan{RunID: runID, SessionID: sessionID, Plan: plan})
	return true
}

// RunFinished records the plan of a run of sessionID that ended with out
// in mode: only a plan-mode run that finished with words leaves a plan.
// It reports whether one now awaits approval.
func (b *Plans) RunFinished(runID, sessionID, mode string, out Outcome) bool {
	if mode != ModePlan || out.Status != StatusFinished {
		return false
	}
	return b.Finished(runID, sessionID, out.Answer)
}

// ErrNoPlan is Approve's error when no plan (or not runID's: never a
// plan, or approved already) awaits approval.
var ErrNoPlan = errors.New("no plan awaits approval")

// Approve takes the plan of runID ("" = the latest) and hands it to
// start, the face's start of the run that carries it out (CarryOut, in
// the plan's session). A plan is approved at most once: taken first, so a
// second approval finds nothing; but a run that fails to start puts the
// plan back, so the user can try again once the cause is fixed.
func (b *Plans) Approve(runID string, start func(WaitingPlan) error) (WaitingPlan, error) {
	p, ok := b.Take(runID)
	if !ok {
		return WaitingPlan{}, ErrNoPlan
	}
	if err := start(p); err != nil {
		b.Wait(p)
		return p, err
	}
	b.log().Info("plan approved", "planRun", p.RunID, "session", p.SessionID)
	return p, nil
}

// CarryOut is the prompt of the run that carries out p.
func (p WaitingPlan) CarryOut() string { return CarryOutPrompt + p.Plan }

// Wait records p for approval (again, after an approval that failed to
// start its run), writing its file.
func (b *Plans) Wait(p WaitingPlan) {
	p.File = b.save(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.plans = append(b.plans, p)
	if len(b.plans) > MaxPlansWaiting {
		b.plans = b.plans[len(b.plans)-MaxPlansWaiting:]
	}
}

// save writes p and returns its file ("" when it could not be written:
// the plan then lives in memory only).
func (b *Plans) save(p WaitingPlan) string {
	dir := b.dir()
	if dir == "" || !validRunID(p.RunID) {
		return ""
	}
	data, _ := json.Marshal(savedPlan{RunID: p.RunID, SessionID: p.SessionID, Plan: p.Plan}) // strings only
	path := filepath.Join(dir, p.RunID+".json")
	if err := statedir.WriteFile(path, data); err != nil {
		b.log().Warn("the plan was not saved; it can be approved until the server stops", "run", p.RunID, "err", err)
		return ""
	}
	statedir.Prune(dir, ".json", MaxPlansWaiting)
	return path
}

// Restore reads the saved plans of the sessions ours accepts, oldest
// first, once (after the sessions are restored).
func (b *Plans) Restore(ours func(sessionID string) bool) {
	b.restoreOnce.Do(func() { b.read(ours) })
}

func (b *Plans) read(ours func(sessionID string) bool) {
	dir := b.dir()
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // none saved yet
	}
	type found struct {
		p   WaitingPlan
		mod time.Time
	}
	var plans []found
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() > maxPlanFileBytes {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		var sp savedPlan
		if err != nil || json.Unmarshal(data, &sp) != nil || sp.RunID+".json" != name || strings.TrimSpace(sp.Plan) == "" {
			continue
		}
		if ours(sp.SessionID) {
			plans = append(plans, found{WaitingPlan{RunID: sp.RunID, SessionID: sp.SessionID, Plan: sp.Plan, File: path}, info.ModTime()})
		}
	}
	sort.SliceStable(plans, func(i, j int) bool { return plans[i].mod.Before(plans[j].mod) })
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range plans {
		b.plans = append(b.plans, f.p)
	}
	if len(b.plans) > MaxPlansWaiting {
		b.plans = b.plans[len(b.plans)-MaxPlansWaiting:]
	}
}

// validRunID reports whether id can name a file: run ids are hex.
func validRunID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Take removes and returns the plan of runID ("" = the latest), with its
// file: a plan whose file is gone was approved by another server (same
// workspace, another editor window) and is dropped here too.
func (b *Plans) Take(runID string) (WaitingPlan, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.plans) - 1; i >= 0; i-- {
		if runID == "" || b.plans[i].RunID == runID {
			p := b.plans[i]
			b.plans = append(b.plans[:i], b.plans[i+1:]...)
			if p.File != "" {
				if err := os.Remove(p.File); errors.Is(err, fs.ErrNotExist) {
					if runID == "" {
						continue // approved elsewhere: the next newest
					}
					return WaitingPlan{}, false
				}
			}
			return p, true
		}
	}
	return WaitingPlan{}, false
}

// DropSessions removes the plans of the given sessions (deleted: their
// plans could only fail to be carried out), with their files.
func (b *Plans) DropSessions(ids ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.plans = slices.DeleteFunc(b.plans, func(p WaitingPlan) bool {
		if !slices.Contains(ids, p.SessionID) {
			return false
		}
		if p.File != "" {
			_ = os.Remove(p.File)
		}
		return true
	})
}

// Latest returns the newest plan awaiting approval.
func (b *Plans) Latest() (WaitingPlan, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.plans) == 0 {
		return WaitingPlan{}, false
	}
	return b.plans[len(b.plans)-1], true
}

// List returns the plans awaiting approval, newest first, so an editor
// can offer every one of them (not only the latest) for approval.
func (b *Plans) List() []WaitingPlan {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := slices.Clone(b.plans)
	slices.Reverse(out)
	return out
}
