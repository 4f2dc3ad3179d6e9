package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/overlay"
	scratchcopy "github.com/agentls/agentls/internal/scratch"
	"github.com/agentls/agentls/internal/workspace"
)

// ProposalView is the workspace as one run proposes it: the first
// workspace folder with the editor's unsaved buffers and the run's staged
// changes over it. Commands (run_command, checks) run there while the run
// has staged changes, so they test the proposal and the user's files are
// never written. It is one of two kinds, chosen when first needed:
//
//   - an overlay view (internal/overlay), where the kernel allows one: each
//     command gets a fresh upper layer holding only the staged changes and
//     buffers, mounted over the folder at the folder's own path in a mount
//     namespace of the command's, so the command sees the paths it expects
//     and setting it up costs what the run changed, not the tree's size;
//   - else a scratch copy of the folder (internal/scratch), outside the
//     workspace, with the text written over it.
//
// The copy is made by the first command that needs it, then kept up to date
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
	kind   string     // "" until decided, then ViewOverlay or ViewCopy
	used   bool       // a command ran in the view
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

// The kinds of proposal view (CheckResult.View).
const (
	ViewOverlay = "overlay"
	ViewCopy    = "copy"
)

// Place is where one command runs: a directory, and in an overlay view
// the wrapper that starts the command inside it (command.Spec.Wrap).
// Done releases it once the command has ended.
type Place struct {
	Dir    string
	InView bool
	View   string // ViewOverlay or ViewCopy when InView
	Wrap   func(*exec.Cmd) error
	done   func()
}

// Done releases what the place holds (an overlay's layers, removed in the
// background). Safe on the zero Place.
func (pl Place) Done() {
	if pl.done != nil {
		pl.done()
	}
}

// Where says where a command ran, for results the model and the user read.
func (pl Place) Where() string { return whereOf(pl.InView, pl.View) }

func whereOf(inView bool, view string) string {
	switch {
	case !inView:
		return "ran in the workspace folder"
	case view == ViewOverlay:
		return "ran in the proposal view: an overlay view of the workspace with your staged changes applied (the user's files are not changed)"
	default:
		return "ran in the proposal view: a copy of the workspace with your staged changes applied (the user's files are not changed)"
	}
}

// Enter prepares the view for one command and returns where it runs; the
// caller calls Place.Done when the command has ended.
func (p *ProposalView) Enter(ctx context.Context) (Place, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return Place{}, fmt.Errorf("%w: the run is over", ErrNoView)
	}
	p.decide()
	if p.kind == ViewOverlay {
		pl, err := p.enterOverlay()
		if err == nil {
			p.used = true
		}
		return pl, err
	}
	dir, err := p.syncCopy(ctx)
	if err != nil {
		return Place{}, err
	}
	p.used = true
	return Place{Dir: dir, InView: true, View: ViewCopy}, nil
}

// decide chooses the view's kind once per run: an overlay when the kernel
// allows one (overlay.Supported, asked once per process) and one mounts
// over this folder with its layers in BaseDir (overlay.Probe), else the
// copy. Called with mu held.
func (p *ProposalView) decide() {
	if p.kind != "" {
		return
	}
	p.kind = ViewCopy
	folders := p.view.Folders()
	if len(folders) == 0 {
		return
	}
	err := overlay.Supported()
	if err == nil {
		base := p.baseDir()
		if err = os.MkdirAll(base, 0o700); err == nil {
			err = overlay.Probe(folders[0], base)
		}
	}
	if err != nil {
		if !errors.Is(err, overlay.ErrOff) {
			slog.Info("proposal view: using a copy of the workspace", "why", err)
		}
		return
	}
	p.kind = ViewOverlay
}

func (p *ProposalView) baseDir() string {
	if p.BaseDir != "" {
		return p.BaseDir
	}
	return scratchcopy.DefaultBaseDir()
}

// enterOverlay makes a fresh upper layer for one command: every staged
// change and every open buffer of the folder, written at its place. A
// command's own writes land in that layer and go with it, so every
// command starts from the same proposal, as in the copy.
func (p *ProposalView) enterOverlay() (Place, error) {
	folder := p.view.Folders()[0]
	d, err := scratchcopy.NewDir(p.baseDir(), p.label)
	if err != nil {
		return Place{}, fmt.Errorf("%w: %w", ErrNoView, err)
	}
	l := overlay.Layers{Lower: folder, Upper: filepath.Join(d.Path(), "upper"), Work: filepath.Join(d.Path(), "work")}
	fail := func(err error) (Place, error) {
		d.Close()
		return Place{}, fmt.Errorf("%w: %w", ErrNoView, err)
	}
	for _, dir := range []string{l.Upper, l.Work} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			return fail(err)
		}
	}
	texts := map[string]string{}
	for _, path := range p.view.OpenPaths() {
		if snap, ok := p.view.Overlay(path); ok {
			texts[path] = snap.Text
		}
	}
	for _, path := range p.changes.Files() {
		if f, ok := p.changes.Get(path); ok && f.Pending() {
			texts[path] = f.Text
		}
	}
	for _, path := range slices.Sorted(maps.Keys(texts)) {
		rel, err := filepath.Rel(folder, path)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			continue // another folder, or not a file path (untitled:)
		}
		if err := l.WriteFile(rel, texts[path]); err != nil {
			return fail(err)
		}
	}
	return Place{Dir: folder, InView: true, View: ViewOverlay, Wrap: l.Wrap, done: func() { d.Close() }}, nil
}

// syncCopy makes or updates the copy so that it shows the proposal as it
// is now, and returns the directory that mirrors the first workspace
// folder. Called with mu held.
func (p *ProposalView) syncCopy(ctx context.Context) (string, error) {
	switch {
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

// Prewarm chooses the view's kind and, for a copy, starts making it in
// the background, so that the first command finds it ready instead of
// waiting for a whole workspace to be copied (a run that will run checks
// calls it on its first staged change). Commands wait for it; Close stops
// it. Calling it again, or after the copy exists, does nothing.
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
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.closed {
			return
		}
		p.decide()
		if p.kind == ViewCopy {
			_, _ = p.syncCopy(ctx) // a failure is kept in p.err for the first command
		}
	}()
}

// Close removes the copy (moved aside, deleted in the background:
// scratch.WaitRemovals); the view cannot be used after. It is safe to
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

// Made reports whether a command needed the view (for a copy: it
// exists), for tests and logs.
func (p *ProposalView) Made() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return (p.used || p.copy != nil) && !p.closed
}

// Kind is the view's kind once chosen (ViewOverlay, ViewCopy), else "".
func (p *ProposalView) Kind() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.kind
}
