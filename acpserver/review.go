package acpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/agent/revert"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// Review over ACP. A run's staged change goes into the proposal store
// (the same store, hunks and rebase rules as over LSP) and is asked about
// at once with session/request_permission, showing its diff; the run
// waits for the answer, as ACP agents do. With checks configured it is
// asked about only at the end of the turn, once the checks passed
// (turnreview.go). The answer is a review
// decision, handed to the session as an input (agent.Decision) exactly
// like agentls.accept / agentls.reject: the run applies it at its next
// step, and the session tells the model on its next prompt (with the
// reason of a rejection). Allowed hunks are written by the client
// (fs/write_text_file, so the editor keeps undo and unsaved buffers) when
// it offers that, else through tools.WriteConfined. Before writing, the
// store is brought up to date with the file as it is now (the client's
// buffer, else the disk): hunks the user's edits touched are conflicted
// and never written, the rest are rebased (optimistic lock).
//
// _meta of each permission request carries, under "agentls", the run id,
// the path, the store's revision of the text and its SHA-256, and the
// hunks (id, 1-based lines, old and new text), so a client can offer
// per-hunk choices: its answer may carry "_meta": {"agentls":
// {"rejectHunks": [ids], "reason": "…"}}. A client whose initialize
// capabilities carry "_meta": {"agentls": {"hunkPermissions": true}} gets
// one request per hunk instead.

// reviewState is the connection's review desk (agent/desk), shared by
// its sessions; store is the desk's store, for queries.
type reviewState struct {
	*desk.Desk
	store *proposal.Store
}

func newReviewState(log *slog.Logger) reviewState {
	d := desk.New(log)
	return reviewState{Desk: d, store: d.Store()}
}

// Permission option ids for file changes.
const (
	optAllow       = "allow"
	optAllowAlways = "allow-always"
	optReject      = "reject"
)

// stage puts runID's staged entry for f.Path into review, rebased onto
// the file as the session sees it now (desk.Desk.Stage).
func (s *Server) stage(ss *session, runID string, f tools.StagedFile) {
	s.review.Stage(ss.docs(), runID, f)
}

// docs is the session's view of documents for the desk: the client's
// buffers it pulled are read like files (they carry no version).
func (ss *session) docs() desk.Source { return desk.ViewSource(ss.view, false) }

// reviewResult is what became of one proposal, for the tool call.
type reviewResult struct {
	written  int    // hunks written
	rejected int    // hunks rejected
	pending  bool   // no answer (cancelled): still in review
	note     string // for the user: where it went, or why not
}

// reviewChange asks about runID's proposal for path (unless the session
// allows every change) and carries out the answer. callID is the tool
// call that staged it; checks, when not "", is what the turn's checks
// said about the change, shown with its diff (turnreview.go).
func (ss *session) reviewChange(ctx context.Context, callID acp.ToolCallId, runID, path, checks string) reviewResult {
	s := ss.srv
	s.review.Resync(ss.docs(), path)
	p, ok := s.review.Proposal(runID, path)
	if !ok || len(p.Hunks) == 0 {
		return reviewResult{note: "No change left to review (the file already holds it)."}
	}
	ss.mu.Lock()
	auto := desk.WritesUnasked(ss.effectiveMode(), ss.autoAllow)
	ss.mu.Unlock()
	if auto {
		return ss.writeAccepted(ctx, runID, path, "")
	}
	var reject []string
	reason := ""
	if hunkPermissions(s.clientCaps()) && len(p.Hunks) > 1 {
		for i, h := range p.Hunks {
			one := p
			one.Hunks = []proposal.Hunk{h}
			a, err := ss.askChange(ctx, callID, one, fmt.Sprintf(" (change %d of %d)", i+1, len(p.Hunks)), checks)
			if err != nil {
				return reviewResult{pending: true, note: "Not decided: " + err.Error() + ". The change stays pending in the session."}
			}
			switch {
			case a.Allow && a.Always:
				ss.setAutoAllow()
			case a.Allow:
			case a.ID != "": // the offered reject
				reject = append(reject, h.ID)
				reason = desk.JoinReason(reason, metaString(a.meta, "reason"))
			default: // fail closed: only an offered "allow" writes
				reject = append(reject, h.ID)
				reason = desk.JoinReason(reason, unofferedReason(a.raw))
			}
		}
	} else {
		a, err := ss.askChange(ctx, callID, p, "", checks)
		if err != nil {
			return reviewResult{pending: true, note: "Not decided: " + err.Error() + ". The change stays pending in the session."}
		}
		reason = metaString(a.meta, "reason")
		switch {
		case a.Allow:
			if a.Always {
				ss.setAutoAllow()
			}
			reject = metaStrings(a.meta, "rejectHunks")
		default: // the offered reject, or fail closed: only an offered "allow" writes
			if a.ID == "" {
				reason = unofferedReason(a.raw)
			}
			for _, h := range p.Hunks {
				reject = append(reject, h.ID)
			}
		}
	}
	res := reviewResult{}
	if len(reject) > 0 {
		res.rejected = ss.rejectHunks(runID, path, reject, reason)
	}
	if _, left := s.review.Proposal(runID, path); !left {
		res.note = "Rejected; nothing was written."
		if reason != "" {
			res.note = "Rejected: " + reason
		}
		ss.save()
		return res
	}
	w := ss.writeAccepted(ctx, runID, path, reason)
	w.rejected = res.rejected
	if res.rejected > 0 && w.written > 0 {
		w.note = fmt.Sprintf("%s %s rejected.", w.note, text.Plural(res.rejected, "change"))
	}
	return w
}

// unofferedReason is the rejection reason of an answer naming an option
// agentls never offered: an editor bug or a hostile client, never consent.
func unofferedReason(opt string) string {
	return fmt.Sprintf("the editor answered with option %q, which agentls did not offer; treated as a rejection", opt)
}

func (ss *session) setAutoAllow() {
	ss.mu.Lock()
	ss.autoAllow = true
	ss.mu.Unlock()
}

// askChange sends the permission request for p (all its hunks, or the one
// it holds) and returns the chosen option and the answer's agentls _meta.
// checks, when not "", follows the diff as text: the person decides
// knowing what the project's checks said.
func (ss *session) askChange(ctx context.Context, callID acp.ToolCallId, p proposal.Proposal, suffix, checks string) (answer, error) {
	rev, _ := ss.srv.review.store.Revision(p.Path)
	sum := sha256.Sum256([]byte(p.Text))
	hunks := make([]map[string]any, len(p.Hunks))
	for i, h := range p.Hunks {
		hunks[i] = map[string]any{
			"id": h.ID, "startLine": lineOf(p.Text, h.Start), "endLine": lineOf(p.Text, h.End),
			"oldText": h.OldText, "newText": h.NewText, "status": string(h.Status),
		}
		if h.Status == proposal.StatusConflicted {
			hunks[i]["reason"] = h.Reason
		}
	}
	meta := map[string]any{"agentls": map[string]any{
		"runId": p.RunID, "path": p.Path, "revision": rev, "sha256": hex.EncodeToString(sum[:]), "hunks": hunks,
	}}
	newText := p.Result()
	title := "Edit " + ss.display(p.Path) + suffix
	if p.Created && p.Text == "" {
		title = "Create " + ss.display(p.Path) + suffix
	}
	content := []acp.ToolCallContent{diffContent(p.Path, p.Text, newText, p.Created && p.Text == "")}
	if checks != "" {
		content = append(content, acp.ToolContent(acp.TextBlock(checks)))
	}
	tc := acp.ToolCallUpdate{
		ToolCallId: callID,
		Title:      &title,
		Kind:       acp.Ptr(acp.ToolKindEdit),
		Status:     acp.Ptr(acp.ToolCallStatusPending),
		Content:    content,
		Locations:  []acp.ToolCallLocation{{Path: p.Path, Line: acp.Ptr(firstLine(p))}},
	}
	return ss.ask(ctx, callID, &tc, []acp.PermissionOption{
		{OptionId: optAllow, Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionId: optAllowAlways, Name: "Allow all changes in this session", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: optReject, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
	}, meta)
}

// answer is a permission request's answer read by the core's rule
// (agent.Decide): Choice is the offered option chosen, agent.Deny for an
// option that was not offered (fail closed); raw is the option id as the
// client sent it and meta its _meta.agentls.
type answer struct {
	agent.Choice
	raw  string
	meta map[string]any
}

// choicesOf are the offered options as agent.Decide reads them: an allow
// kind says yes, "allow always" for the rest of the session or run.
func choicesOf(opts []acp.PermissionOption) []agent.Choice {
	out := make([]agent.Choice, len(opts))
	for i, o := range opts {
		out[i] = agent.Choice{ID: string(o.OptionId),
			Allow:  o.Kind == acp.PermissionOptionKindAllowOnce || o.Kind == acp.PermissionOptionKindAllowAlways,
			Always: o.Kind == acp.PermissionOptionKindAllowAlways}
	}
	return out
}

// ask sends session/request_permission and waits for the person (bounded
// by the prompt and its run's wall clock: a cancelled or timed-out prompt
// is an error, "not decided"). tc nil refers to callID alone.
func (ss *session) ask(ctx context.Context, callID acp.ToolCallId, tc *acp.ToolCallUpdate, opts []acp.PermissionOption, meta map[string]any) (answer, error) {
	req := acp.RequestPermissionRequest{SessionId: acp.SessionId(ss.id), Options: opts, Meta: meta}
	if tc != nil {
		req.ToolCall = *tc
	} else {
		req.ToolCall = acp.ToolCallUpdate{ToolCallId: callID}
	}
	resp, err := ss.srv.conn.RequestPermission(ctx, req)
	if err != nil {
		if errors.Is(context.Cause(ctx), agent.ErrWallClock) {
			return answer{}, errors.New("no answer within the run's time limit (maxWallClockSeconds)")
		}
		if ctx.Err() != nil {
			return answer{}, errors.New("the prompt was cancelled before an answer")
		}
		return answer{}, fmt.Errorf("the editor did not answer the permission request: %v", err)
	}
	if resp.Outcome.Selected == nil {
		return answer{}, errors.New("the editor cancelled the permission request")
	}
	a := answer{raw: string(resp.Outcome.Selected.OptionId)}
	a.Choice = agent.Decide(choicesOf(opts), a.raw, nil)
	if a.ID == "" {
		ss.srv.log.Warn("permission answered with an option that was not offered; denied", "session", ss.id, "option", a.raw)
	}
	if m, ok := resp.Meta["agentls"].(map[string]any); ok {
		a.meta = m
	} else if m, ok := resp.Outcome.Selected.Meta["agentls"].(map[string]any); ok {
		a.meta = m
	}
	return a, nil
}

// rejectHunks rejects the hunks ids of runID's proposal for path and tells
// the session (with the reason, for the model). It returns how many hunks
// were rejected.
func (ss *session) rejectHunks(runID, path string, ids []string, reason string) int {
	filters := make([]proposal.Filter, len(ids))
	for i, id := range ids {
		filters[i] = proposal.Filter{RunID: runID, Path: path, HunkID: id}
	}
	n, ds := ss.srv.review.Reject(ss.docs(), reason, filters...)
	for _, d := range ds {
		ss.core.Decide(d)
	}
	return n
}

// writeAccepted writes runID's pending hunks for path (desk.Desk.Accept
// with ss.write as the writer) once the client's buffer was read again:
// hunks the user's edits touched are conflicted and left out (reported),
// the others rebased. reason, what the user said about the rest of the
// change, goes to the session with the accept.
func (ss *session) writeAccepted(ctx context.Context, runID, path, reason string) reviewResult {
	if err := ss.syncBuffer(ctx, path); err != nil {
		return reviewResult{note: "Not written: " + err.Error()}
	}
	via := ""
	out, err := ss.srv.review.Accept(ss.docs(), proposal.Filter{RunID: runID, Path: path}, text.UTF8, reason, func(l desk.ToWrite) (err error) {
		via, err = ss.write(ctx, l.Plan.Files[0])
		return err
	})
	switch {
	case errors.Is(err, desk.ErrChanging):
		return reviewResult{note: "Not written: the file kept changing while the change was prepared; the change stays pending."}
	case err != nil:
		return reviewResult{note: "Not written: " + err.Error()}
	case out.Plan.Empty():
		return reviewResult{note: "Not written: " + desk.ConflictText(out.Plan.Conflicts)}
	case out.Failed != "":
		ss.save()
		return reviewResult{note: "Not written: " + out.Failed + ". The change stays pending in the session."}
	}
	for _, d := range out.Decisions {
		ss.core.Decide(d)
	}
	ss.save()
	// The snapshot last: what the session is told must not wait for
	// this file I/O (as lspserver/runs does on accept).
	fe := out.Plan.Files[0]
	note := "Written " + via + "."
	if ss.recordLanded(runID, fe) {
		note += " To take run " + runID + " back: agentls revert --dir " + safetext.ShellQuote(ss.cwd) + " " + runID
	}
	if len(out.Plan.Conflicts) > 0 {
		note += " Not written (conflicted with your edits): " + desk.ConflictText(out.Plan.Conflicts)
	}
	return reviewResult{written: len(fe.HunkIDs), note: note}
}

// recordLanded keeps what an allowed change replaced once it was
// written, in the revert snapshot store the LSP server and `agentls
// revert` read (agent/revert, <state dir>/reverts), so the run can be
// taken back later from either; ACP itself has no revert method. Without
// a state directory nothing is kept (the run cannot be reverted). It
// reports whether the change was recorded.
func (ss *session) recordLanded(runID string, fe proposal.FileEdit) bool {
	kept, err := ss.srv.reverts().Keep(runID, ss.core.ID(), revert.File{Path: fe.Path, Before: fe.Before, After: fe.Expected, Created: fe.Created})
	if err != nil {
		ss.srv.log.Warn("this change cannot be reverted later", "run", runID, "path", fe.Path, "err", err)
	}
	return kept
}

// reverts is the revert snapshot store under the state directory; nil
// when there is none (Options.StateDir NoState).
func (s *Server) reverts() *revert.Store { return revert.InStateDir(s.stateDir()) }

// write puts fe.Expected into the file and says how.
func (ss *session) write(ctx context.Context, fe proposal.FileEdit) (string, error) {
	s := ss.srv
	if _, err := ss.view.Resolve(fe.Path); err != nil {
		return "", err
	}
	if tools.InGitDir(fe.Path) {
		return "", fmt.Errorf("%s is inside .git, which agentls never writes", fe.Path)
	}
	if s.clientCaps().Fs.WriteTextFile {
		wctx, cancel := context.WithTimeout(ctx, ss.clientTimeout())
		defer cancel()
		if _, err := s.conn.WriteTextFile(wctx, acp.WriteTextFileRequest{SessionId: acp.SessionId(ss.id), Path: fe.Path, Content: fe.Expected}); err != nil {
			return "", fmt.Errorf("the editor did not write the file: %v", err)
		}
		ss.setBuffer(fe.Path, fe.Expected)
		return "by the editor", nil
	}
	if err := tools.WriteConfined(ss.view, fe.Path, fe.Before, fe.Created, fe.Expected); err != nil {
		return "", err
	}
	ss.view.Invalidate(fe.Path)
	return "to disk", nil
}

// hunkPermissions reports whether the client asked for one permission per
// hunk (initialize's clientCapabilities._meta.agentls.hunkPermissions).
func hunkPermissions(c acp.ClientCapabilities) bool {
	a, _ := c.Meta["agentls"].(map[string]any)
	v, _ := a["hunkPermissions"].(bool)
	return v
}

func metaString(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return strings.TrimSpace(s)
}

func metaStrings(m map[string]any, key string) []string {
	raw, _ := m[key].([]any)
	var out []string
	for _, v := range raw {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// lineOf is the 1-based line of byte offset off in t.
func lineOf(t string, off int) int {
	if off > len(t) {
		off = len(t)
	}
	return strings.Count(t[:off], "\n") + 1
}

func firstLine(p proposal.Proposal) int {
	if len(p.Hunks) == 0 {
		return 1
	}
	return lineOf(p.Text, p.Hunks[0].Start)
}

// diffContent is the ACP diff of a file: oldText absent for a new file.
func diffContent(path, oldText, newText string, created bool) acp.ToolCallContent {
	if created {
		return acp.ToolDiffContent(path, newText)
	}
	return acp.ToolDiffContent(path, newText, oldText)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
