package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	scratchcopy "github.com/agentls/agentls/internal/scratch"
	"github.com/agentls/agentls/internal/workspace"
)

// ProposalView is the workspace as one run proposes it, on disk: a scratch
// copy of the first workspace folder (internal/scratch) with the editor's
// unsaved buffers and the run's staged changes written over it, outside
// the workspace. Commands (run_command, checks) run there while the run
// has staged changes, so they test the proposal and the user's files are
// never written.
//
// It is made by the first command that needs it, then kept up to date
// incrementally: before each command only what changed since the last one
// is rewritten (a change staged or undone, a buffer edited, a file changed
// on disk, whatever a command changed in the copy). Close removes it when
// the run ends. One per run, through Env.Proposal.
type ProposalView struct {
	view    *workspace.View
	changes *Changeset
	label   string
	// BaseDir is where the copy goes; "" is scratchcopy.DefaultBaseDir().
	BaseDir string

	mu     sync.Mutex // held while syncing: serialises commands' use of the copy
	copy   *scratchcopy.Copy
	err    error             // why the copy could not be made; the run does not try again
	placed map[string]string // path → what is written over the disk's text there ("staged:<hash>", "buffer:<hash>")
	unsub  func()
	closed bool

	// A copy being made in the background (Prewarm): Close stops and
	// waits for it.
	warmCancel context.CancelFunc
	warmDone   chan struct{}

	// dirty collects the paths the workspace reported changed (disk or
	// buffer). Its own lock: the subscriber runs on the editor's
	// didChange goroutine and must never wait for a sync.
	dirtyMu sync.Mutex
	dirty   map[string]bool
}

// NewProposalView returns the (not yet made) proposal view of a run over
// view with the changes it stages.
func NewProposalView(view *workspace.View, changes *Changeset, runID string) *ProposalView {
	return &ProposalView{view: view, changes: changes, label: runID}
}

// ErrNoView is wrapped by Sync when the scratch copy could not be made
// (disk full, permissions, a workspace over the copy's bounds): commands
// that need the proposal are not run.
var ErrNoView = errors.New("the proposal view (a scratch copy of the workspace with the staged changes) could not be made")

// Sync makes or updates the copy so that it shows the proposal as it is
// now, and returns the directory that mirrors the first workspace folder.
func (p *ProposalView) Sync(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return "", fmt.Errorf("%w: the run is over", ErrNoView)
	case p.err != nil:
		return "", p.err
	case p.copy == nil:
		if err := p.create(ctx); err != nil {
			if ctx.Err() == nil {
				p.err = err
			}
			return "", err
		}
	default:
		if _, err := p.copy.Repair(ctx); err != nil {
			return "", fmt.Errorf("proposal view: %w", err)
		}
	}
	if err := p.update(ctx); err != nil {
		return "", fmt.Errorf("proposal view: %w", err)
	}
	return p.copy.Root(), nil
}

func (p *ProposalView) create(ctx context.Context) error {
	folders := p.view.Folders()
	if len(folders) == 0 {
		return fmt.Errorf("%w: no workspace folder is open", ErrNoView)
	}
	p.placed = map[string]string{}
	// Subscribe before copying: a file that changes while it is copied is
	// then written again by update.
	p.unsub = p.view.Subscribe(func(ev workspace.Event) { p.markDirty(ev.Path) })
	c, err := scratchcopy.New(ctx, scratchcopy.Options{View: p.view, Folder: folders[0], BaseDir: p.BaseDir, Label: p.label})
	if err != nil {
		p.unsub()
		return fmt.Errorf("%w: %w", ErrNoView, err)
	}
	p.copy = c
	for _, key := range p.view.OpenPaths() { // every open buffer over the disk's text
		p.markDirty(key)
	}
	return nil
}

func (p *ProposalView) markDirty(path string) {
	p.dirtyMu.Lock()
	if p.dirty == nil {
		p.dirty = map[string]bool{}
	}
	p.dirty[path] = true
	p.dirtyMu.Unlock()
}

func (p *ProposalView) takeDirty() map[string]bool {
	p.dirtyMu.Lock()
	defer p.dirtyMu.Unlock()
	d := p.dirty
	p.dirty = nil
	return d
}

// update writes over the copy what differs from what it shows: the
// run's staged changes (by hash), then buffers and disk files reported
// changed, then places whose staged change went away. Paths outside the
// copied folder are not in the view.
func (p *ProposalView) update(ctx context.Context) error {
	todo := p.takeDirty()
	if todo == nil {
		todo = map[string]bool{}
	}
	staged := map[string]bool{}
	for _, path := range p.changes.Files() {
		staged[path] = true
		todo[path] = true
	}
	for path, what := range p.placed {
		if len(what) > 7 && what[:7] == "staged:" && !staged[path] {
			todo[path] = true // no longer staged: the buffer or the disk again
		}
	}
	for _, path := range slices.Sorted(maps.Keys(todo)) {
		if _, err := p.copy.Path(path); err != nil {
			continue // another folder, or not a file path (untitled:)
		}
		if err := p.place(ctx, path); err != nil {
			return err
		}
	}
	return nil
}

// place writes path's proposed content over the copy: the staged text,
// else the buffer, else the disk's.
func (p *ProposalView) place(ctx context.Context, path string) error {
	want, text := "", ""
	if f, ok := p.changes.Get(path); ok && f.Pending() {
		want, text = "staged:"+f.TextHash, f.Text
	} else if snap, ok := p.view.Overlay(path); ok {
		want, text = "buffer:"+snap.Hash, snap.Text
	}
	if want == "" {
		delete(p.placed, path)
		return p.copy.Restore(ctx, path)
	}
	if p.placed[path] == want {
		return nil // Repair already put back anything a command changed
	}
	if err := p.copy.WriteText(path, text); err != nil {
		return err
	}
	p.placed[path] = want
	return nil
}

// Prewarm starts making the copy in the background, so that the first
// command finds it ready instead of waiting for a whole workspace to be
// copied (a run that will run checks calls it on its first staged
// change). Commands wait for it; Close stops it. Calling it again, or
// after the copy exists, does nothing.
func (p *ProposalView) Prewarm(ctx context.Context) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.copy != nil || p.err != nil || p.warmDone != nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	p.warmCancel, p.warmDone = cancel, make(chan struct{})
	go func() {
		defer close(p.warmDone)
		_, _ = p.Sync(ctx) // a failure is kept in p.err for the first command
	}()
}

// Close removes the copy; the view cannot be used after. It is safe to
// call more than once, and on a nil view.
func (p *ProposalView) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	warm := p.warmDone
	if p.warmCancel != nil {
		p.warmCancel()
	}
	p.mu.Unlock()
	if warm != nil {
		<-warm // the background copy sees the cancellation between files
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	if p.unsub != nil {
		p.unsub()
	}
	if p.copy == nil {
		return nil
	}
	return p.copy.Close()
}

// Made reports whether the copy exists (a command needed it), for tests
// and logs.
func (p *ProposalView) Made() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.copy != nil && !p.closed
}
