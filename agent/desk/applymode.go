package desk

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// Apply mode: every change a run stages goes to the editor at once, from
// the tool call that staged it, and skips review. The face sends the edit
// and reads the editor's answer; ApplyRun holds the rules around it.
//
//   - The edits are the minimal diff from the staged base to the staged
//     text, computed against the document as the editor has it: they are
//     sent only when the server's copy (open buffer, else disk) still holds
//     exactly the base. If the user typed in between, nothing is sent; the
//     change stays staged and the run's next edit of the file gets a
//     CONFLICT from the lock, which rebases or discards it.
//   - Open documents get their version, so an editor whose buffer moved on
//     refuses the edit instead of misapplying it; files not open get none.
//   - When the editor says it applied the change, the run waits (at most
//     the settle bound) until the change has reached the server (the
//     editor's didChange, or the file on disk), then marks it applied in
//     the changeset, so the lock treats the result as the run's own and the
//     next edit does not conflict with it. If it never arrives, the
//     changeset is told anyway (the editor said it applied) but no further
//     change to that file is sent in this run: its edits would be computed
//     against text the server cannot confirm.
//   - A change the editor refused, or that could not be sent, stays staged
//     with its reason; at the end of the run the face hands those over to
//     review (Summary), and each file the editor took is recorded as
//     accepted in the run's transcript (RecordFates).
type ApplyRun struct {
	runID  string
	env    *tools.Env
	settle time.Duration
	log    *slog.Logger

	mu          sync.Mutex
	applied     map[string]bool          // paths the editor took a change of
	landed      map[string]*landedChange // per path: what the editor took, over the run
	unconfirmed map[string]bool          // applied, but the result never reached the server
	held        map[string]string        // path → why its staged change was not applied
}

// landedChange is what the editor took of one file in a run: the text
// before its first change and after its last.
type landedChange struct {
	before, after string
	created       bool
}

// NewApplyRun starts the account of runID's changes in env (its
// changeset and view); settle bounds the wait for an applied change to
// reach the server, log receives what is kept staged and why.
func NewApplyRun(runID string, env *tools.Env, settle time.Duration, log *slog.Logger) *ApplyRun {
	if log == nil {
		log = slog.Default()
	}
	return &ApplyRun{runID: runID, env: env, settle: settle, log: log,
		applied: map[string]bool{}, landed: map[string]*landedChange{}, unconfirmed: map[string]bool{}, held: map[string]string{}}
}

// Outgoing is a staged change ready to send: its edits against the
// document as the server has it now, and the open buffer's version (nil
// when the file is not open).
type Outgoing struct {
	File    tools.StagedFile
	Version *int32
	Edits   []text.Edit
}

// Next returns path's staged change to send now, in enc's positions. It
// returns false when there is nothing to send: nothing pending, ctx ended
// (a cancelled run sends nothing more), or the change is held (its
// reason is kept for the hand-over).
func (a *ApplyRun) Next(ctx context.Context, path string, enc text.Encoding) (Outgoing, bool) {
	f, ok := a.env.Changes.Get(path)
	if !ok || !f.Pending() {
		return Outgoing{}, false
	}
	a.mu.Lock()
	unconfirmed := a.unconfirmed[path]
	a.mu.Unlock()
	if unconfirmed {
		a.Hold(path, "an earlier change to this file never showed up in the editor's document, so further changes were not sent")
		return Outgoing{}, false
	}
	if ctx.Err() != nil {
		return Outgoing{}, false
	}
	out, why := a.outgoing(f, enc)
	if why != "" {
		a.Hold(path, why)
		return Outgoing{}, false
	}
	return out, true
}

// outgoing builds the edit of f against the document as the server has
// it now, or says why it cannot be sent.
func (a *ApplyRun) outgoing(f tools.StagedFile, enc text.Encoding) (Outgoing, string) {
	out := Outgoing{File: f}
	view := a.env.View
	snap, open := view.Overlay(f.Path)
	exists := open
	if !open {
		var err error
		if snap, exists, err = view.ReadOrNone(f.Path); err != nil {
			return out, fmt.Sprintf("cannot read the file to check it: %v", err)
		}
	}
	switch {
	case f.Created && exists:
		return out, "the file was created in the meantime"
	case !f.Created && !exists:
		return out, "the file was deleted in the meantime"
	case !f.Created && snap.Hash != f.BaseHash:
		return out, "the document changed in the editor before the change could be sent"
	}
	if open {
		out.Version = snap.Version
	}
	out.Edits = text.Diff(f.Base, f.Text, enc)
	if f.Created {
		// One edit over the whole empty document that ends on the line
		// after it, as accept does (proposal.createEdit): Neovim shows a
		// new file's empty buffer as one empty line with an implicit final
		// newline, and an insertion at 0:0 left that line as a blank line
		// more (saved with the file, and the server never saw the staged
		// text, so the run's next edit of the file was held). Clients
		// without that line clamp the end to the end of the document.
		out.Edits = []text.Edit{{Range: text.Range{End: text.Position{Line: 1}}, NewText: f.Text}}
	}
	return out, ""
}

// Hold keeps path's change staged, for why (shown when the run ends).
func (a *ApplyRun) Hold(path, why string) {
	a.mu.Lock()
	a.held[path] = why
	a.mu.Unlock()
	a.log.Info("apply-mode change kept staged", "run", a.runID, "path", path, "why", why)
}

// Took records that the editor applied f (sent as Next returned it): it
// waits, at most the settle bound, until the server's copy of the file
// shows f's text, then marks it applied in the changeset. It reports
// whether the text showed; when it did not, no further change to the
// file is sent in this run.
func (a *ApplyRun) Took(ctx context.Context, f tools.StagedFile) bool {
	confirmed := a.awaitText(ctx, f.Path, f.TextHash)
	a.mu.Lock()
	a.applied[f.Path] = true
	if l := a.landed[f.Path]; l != nil {
		l.after = f.Text
	} else {
		a.landed[f.Path] = &landedChange{before: f.Base, after: f.Text, created: f.Created}
	}
	delete(a.held, f.Path)
	if !confirmed {
		a.unconfirmed[f.Path] = true
	}
	a.mu.Unlock()
	if !confirmed {
		a.log.Warn("editor applied an edit but the document change never reached the server; no further edits of this file are sent in this run",
			"run", a.runID, "path", f.Path)
	}
	a.env.Changes.MarkApplied(f.Path, f.Text)
	return confirmed
}

// awaitText waits until the server's copy of path (buffer, else disk)
// hashes to want, for at most the settle bound; it reports whether it
// did.
func (a *ApplyRun) awaitText(ctx context.Context, path, want string) bool {
	view := a.env.View
	w := newWaker()
	w.stops = append(w.stops, view.Subscribe(func(ev workspace.Event) {
		if ev.Path == path {
			w.ping()
		}
	}))
	defer w.stop()
	ok, _ := w.until(ctx, time.Now().Add(a.settle), func() bool {
		snap, err := view.Read(path)
		return err == nil && snap.Hash == want
	})
	return ok
}

// Summary returns how many files the editor took changes of, and the
// changes still staged by path, with why each was not applied.
func (a *ApplyRun) Summary() (applied int, held map[string]string) {
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

// RecordFates records each file the editor took a change of as accepted
// ("applied in apply mode") in the run's transcript in dir, with the
// change over the whole run as a diff, as agentls run --apply does: the
// run report shows it like a reviewed change (nothing stayed staged to
// show it otherwise). sess, when the run's session is known, knows the
// run's transcript file.
func (a *ApplyRun) RecordFates(dir string, sess *agent.Session) {
	a.mu.Lock()
	paths := slices.Sorted(maps.Keys(a.landed))
	landed := maps.Clone(a.landed)
	a.mu.Unlock()
	for _, p := range paths {
		l := landed[p]
		f := tools.StagedFile{Base: l.before, Text: l.after, Created: l.created}
		fate := agent.Fate{RunID: a.runID, Path: p, Fate: agent.FateAccepted, Reason: "applied in apply mode", Diff: f.Unified(a.env.Rel(p))}
		if sess != nil {
			_ = sess.RecordFate(dir, fate)
		} else {
			_ = agent.RecordFate(dir, fate)
		}
	}
}
