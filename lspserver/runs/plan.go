package runs

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// Plan mode (agentls.run with mode "plan"): the run gets read-only tools
// plus todo_write and ends with a plan as its answer. The plan waits for
// the user's approval: agentls.approvePlan (or the code action "Agent:
// Approve plan", for plugin-less clients) continues the plan's session
// with a preview-mode run that carries the plan out. Plans awaiting
// approval are also written to the state directory (plans/<run>.json, the
// newest maxPlansWaiting kept) and read back when the server starts, so a
// plan survives an editor restart like the session it belongs to (its
// answer document, still on disk, says how to approve it); approving
// removes the file, so no server approves a plan twice.

// CommandApprovePlan approves a plan and starts the run that carries it
// out; its result is agentls.run's.
const CommandApprovePlan = "agentls.approvePlan"

// ModePlan is agentls.run's mode for a planning run.
const ModePlan = agent.ModePlan

// ApprovePlanArgs is arguments[0] of agentls.approvePlan: the plan run's
// id, or none for the latest plan awaiting approval.
type ApprovePlanArgs struct {
	RunID string `json:"runId,omitempty"`
}

// promptCarryOut starts the run that carries out an approved plan. The
// plan is quoted in full: the session's history may have been compacted.
const promptCarryOut = "The user approved your plan. Carry it out now, step by step, keeping your todo list up to date. The plan:\n\n"

// maxPlansWaiting bounds the plans kept for approval (oldest dropped).
const maxPlansWaiting = 20

type waitingPlan struct {
	runID, sessionID, plan string
	file                   string // its file in the state directory, "" when not written
}

// savedPlan is a plan's file in the state directory.
type savedPlan struct {
	RunID     string `json:"runId"`
	SessionID string `json:"sessionId"`
	Plan      string `json:"plan"`
}

// planBook holds the finished plans that await approval, oldest first.
type planBook struct {
	mu          sync.Mutex
	plans       []waitingPlan
	restoreOnce sync.Once
}

// planDir is where plans awaiting approval are written, "" when nothing
// is written (sessions kept in memory only, or no state directory).
func (rs *Runs) planDir() string {
	if dir := rs.answerDir(); dir != "" {
		return filepath.Join(filepath.Dir(dir), "plans")
	}
	return ""
}

// savePlan writes p to the state directory and returns its file ("" when
// it could not be written: the plan then lives in memory only).
func (rs *Runs) savePlan(p waitingPlan) string {
	dir := rs.planDir()
	if dir == "" || !validRunID(p.runID) {
		return ""
	}
	data, _ := json.Marshal(savedPlan{RunID: p.runID, SessionID: p.sessionID, Plan: p.plan}) // strings only
	path := filepath.Join(dir, p.runID+".json")
	if err := statedir.WriteFile(path, data); err != nil {
		rs.log.Warn("the plan was not saved; it can be approved until the server stops", "run", p.runID, "err", err)
		return ""
	}
	statedir.Prune(dir, ".json", maxPlansWaiting)
	return path
}

// restorePlans puts the saved plans of this workspace's sessions back into
// the book, oldest first, once (after the sessions are restored).
func (rs *Runs) restorePlans() {
	rs.plans.restoreOnce.Do(rs.readPlans)
}

func (rs *Runs) readPlans() {
	dir := rs.planDir()
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // none saved yet
	}
	type found struct {
		p   waitingPlan
		mod time.Time
	}
	var plans []found
	ss := rs.sessions()
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
		if ss.Has(sp.SessionID) {
			plans = append(plans, found{waitingPlan{runID: sp.RunID, sessionID: sp.SessionID, plan: sp.Plan, file: path}, info.ModTime()})
		}
	}
	sort.SliceStable(plans, func(i, j int) bool { return plans[i].mod.Before(plans[j].mod) })
	for _, f := range plans {
		rs.plans.add(f.p)
	}
}

// maxPlanFileBytes bounds a plan file read back (a plan is a model answer,
// which the transcript bounds far lower).
const maxPlanFileBytes = 4 << 20

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

func (b *planBook) add(p waitingPlan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.plans = append(b.plans, p)
	if len(b.plans) > maxPlansWaiting {
		b.plans = b.plans[len(b.plans)-maxPlansWaiting:]
	}
}

// take removes and returns the plan of runID ("" = the latest), with its
// file: a plan whose file is gone was approved by another server (same
// workspace, another editor window) and is dropped here too.
func (b *planBook) take(runID string) (waitingPlan, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.plans) - 1; i >= 0; i-- {
		if runID == "" || b.plans[i].runID == runID {
			p := b.plans[i]
			b.plans = append(b.plans[:i], b.plans[i+1:]...)
			if p.file != "" {
				if err := os.Remove(p.file); errors.Is(err, fs.ErrNotExist) {
					if runID == "" {
						continue // approved elsewhere: the next newest
					}
					return waitingPlan{}, false
				}
			}
			return p, true
		}
	}
	return waitingPlan{}, false
}

// dropSessions removes the plans of the given sessions (deleted: their
// plans could only fail to be carried out), with their files.
func (b *planBook) dropSessions(ids ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.plans = slices.DeleteFunc(b.plans, func(p waitingPlan) bool {
		if !slices.Contains(ids, p.sessionID) {
			return false
		}
		if p.file != "" {
			_ = os.Remove(p.file)
		}
		return true
	})
}

// latest returns the newest plan awaiting approval.
func (b *planBook) latest() (waitingPlan, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.plans) == 0 {
		return waitingPlan{}, false
	}
	return b.plans[len(b.plans)-1], true
}

// planFinished records a finished plan run for approval and returns the
// note for the end-of-run message.
func (rs *Runs) planFinished(r *run, out agent.Outcome) string {
	if r.mode != ModePlan || out.Status != agent.StatusFinished || strings.TrimSpace(out.Answer) == "" {
		return ""
	}
	p := waitingPlan{runID: r.id, sessionID: r.session.ID(), plan: strings.TrimSpace(out.Answer)}
	p.file = rs.savePlan(p)
	rs.plans.add(p)
	return "plan ready for review: approve it with the code action “Agent: Approve plan” (" + CommandApprovePlan + ")"
}

// approvePlanCommand implements agentls.approvePlan.
func (rs *Runs) approvePlanCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var a ApprovePlanArgs
	if err := decodeArg(CommandApprovePlan, raw, &a); err != nil {
		return nil, err
	}
	p, ok := rs.plans.take(a.RunID)
	if !ok {
		if a.RunID != "" {
			return nil, core.InvalidParams("%s: run %s has no plan awaiting approval (it is not a finished plan-mode run, or it was approved already)", CommandApprovePlan, a.RunID)
		}
		return nil, core.InvalidParams("%s: no plan awaits approval; start one with %s and mode %q", CommandApprovePlan, CommandRun, ModePlan)
	}
	args, _ := json.Marshal(RunArgs{Prompt: promptCarryOut + p.plan, SessionID: p.sessionID, Mode: config.ModePreview}) // strings only
	res, err := rs.runCommand(ctx, args)
	if err != nil {
		p.file = rs.savePlan(p)
		rs.plans.add(p) // still waiting: the user can try again
		return nil, err
	}
	rs.log.Info("plan approved", "planRun", p.runID, "session", p.sessionID)
	return res, nil
}

// approvePlanAction is the code action approving the latest plan, offered
// anywhere while one waits.
func (rs *Runs) approvePlanAction() *protocol.CodeAction {
	p, ok := rs.plans.latest()
	if !ok {
		return nil
	}
	title := "Agent: Approve plan “" + text.Clip(text.FirstLine(p.plan), 60) + "”"
	arg, _ := json.Marshal(ApprovePlanArgs{RunID: p.runID})
	return &protocol.CodeAction{
		Title:   title,
		Kind:    core.Ptr(protocol.CodeActionKindRefactorRewrite),
		Command: protocol.Command{Title: title, Command: CommandApprovePlan, Arguments: []protocol.LSPAny{arg}},
	}
}

// planAction is the code action starting a plan-mode run on the range.
func planAction(u string, r protocol.Range) *protocol.CodeAction {
	const title = "Agent: Plan changes to this code…"
	arg, _ := json.Marshal(RunArgs{Prompt: promptPlan, URI: u, Range: &r, Mode: ModePlan}) // strings and numbers only
	return &protocol.CodeAction{
		Title:   title,
		Kind:    core.Ptr(protocol.CodeActionKindRefactorRewrite),
		Command: protocol.Command{Title: title, Command: CommandRun, Arguments: []protocol.LSPAny{arg}},
	}
}

const promptPlan = "Plan how to improve the selected code (correctness, clarity, tests): which files change, what changes and why, in order. Do not edit anything yet."
