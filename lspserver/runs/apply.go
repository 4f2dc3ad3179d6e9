package runs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/tools"
)

// Apply mode: every change a run stages is sent to the editor at once with
// workspace/applyEdit, from the tool call that staged it (the call waits),
// never from the read loop. The server never writes files itself.
//
//   - The edits are the minimal diff from the staged base to the staged
//     text, computed against the document as the editor has it: they are
//     sent only when the server's copy (open buffer, else disk) still holds
//     exactly the base. If the user typed in between, nothing is sent; the
//     change stays staged and the run's next edit of the file gets a
//     CONFLICT from the lock, which rebases or discards it.
//   - Open documents get their version, so an editor whose buffer moved on
//     refuses the edit instead of misapplying it; files not open get a null
//     version; new files a CreateFile (workspaceEdit, shared with review).
//   - applied:true: the run waits (up to RunOptions.ApplySettle) until the
//     change has reached the server (the editor's didChange, or the file on
//     disk), then marks it applied in the changeset, so the lock treats the
//     result as the run's own and the next edit does not conflict with it.
//     If it never arrives, the changeset is told anyway (the editor said it
//     applied) but no further change to that file is sent in this run: its
//     edits would be computed against text the server cannot confirm.
//   - applied:false or an error: a toolResult runEvent (tool "applyEdit",
//     isError) and a progress report say so; the change stays staged.
//
// At the end of a run that was not cancelled, changes still staged become
// proposals for review (Review.Stage) and the final message counts them; a
// cancelled run sends nothing more and proposes nothing.
type applier struct {
	s      *Runs
	runID  string
	env    *tools.Env
	events *eventStream
	prog   *runProgress
	settle time.Duration

	mu          sync.Mutex
	applied     map[string]bool          // paths the editor took a change of
	landed      map[string]*landedChange // per path: what the editor took, over the run
	unconfirmed map[string]bool          // applied, but the result never reached the server
	held        map[string]string        // path → why its staged change was not applied
}

func newApplier(s *Runs, runID string, env *tools.Env, events *eventStream, prog *runProgress, settle time.Duration) *applier {
	return &applier{s: s, runID: runID, env: env, events: events, prog: prog, settle: settle,
		applied: map[string]bool{}, landed: map[string]*landedChange{}, unconfirmed: map[string]bool{}, held: map[string]string{}}
}

// landedChange is what the editor took of one file in a run: the text
// before its first change and after its last.
type landedChange struct {
	before, after string
	created       bool
}

// staged is the changeset subscriber: it runs on the goroutine of the tool
// call that changed path (and again, re-entered, after MarkApplied).
func (a *applier) staged(ctx context.Context, path string) {
	f, ok := a.env.Changes.Get(path)
	if !ok || !f.Pending() {
		return
	}
	a.mu.Lock()
	unconfirmed := a.unconfirmed[path]
	a.mu.Unlock()
	if unconfirmed {
		a.hold(path, "an earlier change to this file never showed up in the editor's document, so further changes were not sent")
		return
	}
	if ctx.Err() != nil {
		return // cancelled: nothing more is sent
	}
	fe, why := a.fileEdit(f)
	if why != "" {
		a.hold(path, why)
		return
	}
	label := "Agent run " + a.runID
	// The run's context: cancelling the run stops waiting for the editor
	// (and sends $/cancelRequest), and client.requestTimeoutSeconds bounds
	// an editor that never answers (core.Client). Either way the change
	// stays staged; a cancelled run proposes nothing, so nothing is
	// offered twice.
	res, err := a.s.core.Client().ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: a.s.docs.WorkspaceEdit([]docs.FileEdit{fe})})
	if err != nil && ctx.Err() != nil {
		a.hold(path, "the run was cancelled while the editor was applying the change")
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
		a.hold(path, reason)
		a.events.send(RunEvent{Kind: kindToolResult, Tool: "applyEdit", IsError: core.Ptr(true),
			Summary: fmt.Sprintf("%s not applied: %s", a.s.view.DisplayName(path), reason)})
		a.prog.report(ctx, fmt.Sprintf("%s not applied", a.s.view.DisplayName(path)))
		return
	}
	confirmed := a.awaitText(ctx, path, f.TextHash)
	a.mu.Lock()
	a.applied[path] = true
	if l := a.landed[path]; l != nil {
		l.after = f.Text
	} else {
		a.landed[path] = &landedChange{before: f.Base, after: f.Text, created: f.Created}
	}
	delete(a.held, path)
	if !confirmed {
		a.unconfirmed[path] = true
	}
	a.mu.Unlock()
	if !confirmed {
		a.s.log.Warn("editor applied an edit but the document change never reached the server; no further edits of this file are sent in this run",
			"run", a.runID, "path", path)
	}
	a.env.Changes.MarkApplied(path, f.Text)
	if sess := a.s.sessionOfRun(a.runID); sess != nil {
		a.s.recordLanded(a.runID, sess.ID(), path, f.Base, f.Text, f.Created)
	}
	a.events.send(RunEvent{Kind: kindProposal, URI: string(uri.File(path)), Applied: core.Ptr(true)})
	a.prog.report(ctx, "applied a change to "+a.s.view.DisplayName(path))
}

// fileEdit builds the edit of f against the document as the server has it
// now, or says why it cannot be sent.
func (a *applier) fileEdit(f tools.StagedFile) (docs.FileEdit, string) {
	fe := docs.FileEdit{Path: f.Path, Created: f.Created}
	snap, open := a.s.view.Overlay(f.Path)
	exists := open
	if !open {
		var err error
		snap, err = a.s.view.Read(f.Path)
		switch {
		case err == nil:
			exists = true
		case errors.Is(err, fs.ErrNotExist):
		default:
			return fe, fmt.Sprintf("cannot read the file to check it: %v", err)
		}
	}
	switch {
	case f.Created && exists:
		return fe, "the file was created in the meantime"
	case !f.Created && !exists:
		return fe, "the file was deleted in the meantime"
	case !f.Created && snap.Hash != f.BaseHash:
		return fe, "the document changed in the editor before the change could be sent"
	}
	if open {
		fe.Version = snap.Version
	}
	fe.Edits = text.Diff(f.Base, f.Text, a.s.core.Session().Encoding)
	if f.Created {
		// One edit over the whole empty document that ends on the line
		// after it, as accept does (proposal.createEdit): Neovim shows a
		// new file's empty buffer as one empty line with an implicit final
		// newline, and an insertion at 0:0 left that line as a blank line
		// more (saved with the file, and the server never saw the staged
		// text, so the run's next edit of the file was held). Clients
		// without that line clamp the end to the end of the document.
		fe.Edits = []text.Edit{{Range: text.Range{End: text.Position{Line: 1}}, NewText: f.Text}}
	}
	return fe, ""
}

// awaitText waits until the server's copy of path (buffer, else disk)
// hashes to want, for at most the settle time; it reports whether it did.
// Subscribing before the first check means no change can slip between.
func (a *applier) awaitText(ctx context.Context, path, want string) bool {
	changed := make(chan struct{}, 1)
	cancel := a.s.view.Subscribe(func(ev workspace.Event) {
		if ev.Path == path {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	defer cancel()
	timer := time.NewTimer(a.settle)
	defer timer.Stop()
	for {
		if snap, err := a.s.view.Read(path); err == nil && snap.Hash == want {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

func (a *applier) hold(path, why string) {
	a.mu.Lock()
	a.held[path] = why
	a.mu.Unlock()
	a.s.log.Info("apply-mode change kept staged", "run", a.runID, "path", path, "why", why)
}

// summary returns how many files the editor took changes of and the
// reasons of the changes left staged, by path.
// recordFates records each file the editor took a change of as accepted
// ("applied in apply mode") in the run's transcript, with the change as a
// diff, as agentls run --apply does: the run report shows it like a
// reviewed change (nothing stayed staged to show it otherwise).
func (a *applier) recordFates() {
	tdir := a.s.cfg.options().TranscriptDir
	if tdir == NoTranscripts {
		return
	}
	a.mu.Lock()
	paths := slices.Sorted(maps.Keys(a.landed))
	landed := maps.Clone(a.landed)
	a.mu.Unlock()
	sess := a.s.sessionOfRun(a.runID)
	for _, p := range paths {
		l := landed[p]
		rel := a.env.Rel(p)
		f := tools.StagedFile{Base: l.before, Text: l.after, Created: l.created}
		fate := agent.Fate{RunID: a.runID, Path: p, Fate: agent.FateAccepted, Reason: "applied in apply mode", Diff: f.Unified(rel)}
		if sess != nil { // the session knows the run's transcript file
			_ = sess.RecordFate(tdir, fate)
		} else {
			_ = agent.RecordFate(tdir, fate)
		}
	}
}

func (a *applier) summary() (applied int, held map[string]string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	held = make(map[string]string, len(a.held))
	for _, p := range a.env.Changes.Files() {
		why := a.held[p]
		if why == "" {
			why = "not sent"
		}
		held[p] = why
	}
	return len(a.applied), held
}
