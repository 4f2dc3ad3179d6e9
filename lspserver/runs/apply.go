package runs

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/tools"
)

// Apply mode (the rules: desk.ApplyRun): every change a run stages is
// sent to the editor at once with workspace/applyEdit, from the tool call
// that staged it (the call waits), never from the read loop. The server
// never writes files itself. Open documents get their version; files not
// open a null version; new files a CreateFile (workspaceEdit, shared with
// review). applied:true: the change is marked applied once it reached the
// server, within RunOptions.ApplySettle (desk.ApplyRun.Took).
// applied:false or an error: a toolResult runEvent (tool "applyEdit",
// isError) and a progress report say so; the change stays staged.
//
// At the end of a run that was not cancelled, changes still staged become
// proposals for review (Review.Stage) and the final message counts them; a
// cancelled run sends nothing more and proposes nothing.
type applier struct {
	s      *Runs
	runID  string
	events *eventStream
	prog   *runProgress
	run    *desk.ApplyRun
}

func newApplier(s *Runs, runID string, env *tools.Env, events *eventStream, prog *runProgress, settle time.Duration) *applier {
	return &applier{s: s, runID: runID, events: events, prog: prog, run: desk.NewApplyRun(runID, env, settle, s.log)}
}

// staged is the changeset subscriber: it runs on the goroutine of the tool
// call that changed path (and again, re-entered, after MarkApplied).
func (a *applier) staged(ctx context.Context, path string) {
	out, ok := a.run.Next(ctx, path, a.s.core.Session().Encoding)
	if !ok {
		return
	}
	fe := docs.FileEdit{Path: path, Version: out.Version, Created: out.File.Created, Edits: out.Edits}
	label := "Agent run " + a.runID
	// The run's context: cancelling the run stops waiting for the editor
	// (and sends $/cancelRequest), and client.requestTimeoutSeconds bounds
	// an editor that never answers (core.Client). Either way the change
	// stays staged; a cancelled run proposes nothing, so nothing is
	// offered twice.
	res, err := a.s.core.Client().ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: a.s.docs.WorkspaceEdit([]docs.FileEdit{fe})})
	if err != nil && ctx.Err() != nil {
		a.run.Hold(path, "the run was cancelled while the editor was applying the change")
		return
	}
	if err != nil || !res.Applied {
		reason := "the editor refused the change"
		switch {
		case err != nil:
			reason = fmt.Sprintf("workspace/applyEdit failed: %v", err)
		case res.FailureReason != nil && *res.FailureReason != "":
			reason = "the editor refused the change: " + *res.FailureReason
		}
		a.run.Hold(path, reason)
		a.events.send(RunEvent{Kind: kindToolResult, Tool: "applyEdit", IsError: core.Ptr(true),
			Summary: fmt.Sprintf("%s not applied: %s", a.s.view.DisplayName(path), reason)})
		a.prog.report(ctx, fmt.Sprintf("%s not applied", a.s.view.DisplayName(path)))
		return
	}
	f := out.File
	a.run.Took(ctx, f)
	if sess := a.s.sessionOfRun(a.runID); sess != nil {
		a.s.recordLanded(a.runID, sess.ID(), path, f.Base, f.Text, f.Created)
	}
	a.events.send(RunEvent{Kind: kindProposal, URI: string(uri.File(path)), Applied: core.Ptr(true)})
	a.prog.report(ctx, "applied a change to "+a.s.view.DisplayName(path))
}

// recordFates records the files the editor took as accepted in the run's
// transcript (desk.ApplyRun.RecordFates).
func (a *applier) recordFates() {
	tdir := a.s.cfg.options().TranscriptDir
	if tdir == NoTranscripts {
		return
	}
	a.run.RecordFates(tdir, a.s.sessionOfRun(a.runID))
}

// summary returns how many files the editor took changes of and the
// reasons of the changes left staged, by path.
func (a *applier) summary() (applied int, held map[string]string) { return a.run.Summary() }
