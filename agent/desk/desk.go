package desk

import (
	"errors"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// Doc is a document as a face sees it.
type Doc struct {
	Text string
	// Version is the editor's version of an open buffer, nil otherwise.
	Version *int32
	// Open: an editor buffer with a version holds the text, and the
	// editor tells every change of it (so the store follows it through
	// the face's change hooks, not through reads).
	Open bool
	// Missing: there is no such file (Text is "").
	Missing bool
}

// Source is a face's view of documents.
type Source interface {
	// Buffer returns path's open editor buffer. It is called under the
	// desk's lock, so it must not read files or emit events that come
	// back to the desk.
	Buffer(path string) (Doc, bool)
	// Read returns path's text as it is now: an open buffer, else the
	// file. It is called outside the desk's lock (a read may emit
	// events whose handlers take it).
	Read(path string) (Doc, error)
}

// ViewSource is a Source over a workspace view. With editorBuffers the
// view's overlays are versioned editor buffers the face follows (LSP);
// without, overlays are texts the face pulled from the editor now and
// then (ACP), read like files.
func ViewSource(v *workspace.View, editorBuffers bool) Source {
	return viewSource{v, editorBuffers}
}

type viewSource struct {
	v       *workspace.View
	buffers bool
}

func (s viewSource) Buffer(path string) (Doc, bool) {
	if !s.buffers {
		return Doc{}, false
	}
	snap, open := s.v.Overlay(path)
	return Doc{Text: snap.Text, Version: snap.Version, Open: open}, open
}

func (s viewSource) Read(path string) (Doc, error) {
	snap, err := s.v.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Doc{Missing: true}, nil
	case err != nil:
		return Doc{}, err
	}
	d := Doc{Text: snap.Text, Open: s.buffers && snap.Open}
	if d.Open {
		d.Version = snap.Version
	}
	return d, nil
}

// Desk is a connection's proposals under review. Its methods are safe
// for concurrent use.
type Desk struct {
	// mu orders every update of a document's text into the store
	// (staging, the face's change hooks, resyncs), so the store never
	// goes back to an older text. Source.Read is never called under it.
	mu    sync.Mutex
	store *proposal.Store
	log   *slog.Logger

	problems problemBook
	origins  origins

	// showsLate: an accepted edit of this connection showed only after
	// the accept's answer, so accepts no longer wait for it (landing.go).
	showsLate atomic.Bool
}

// New returns an empty desk; log receives what cannot be told to anyone.
func New(log *slog.Logger) *Desk {
	if log == nil {
		log = slog.Default()
	}
	return &Desk{store: proposal.New(), log: log}
}

// Store is the desk's proposal store, for queries and for the faces'
// landing checks (Landed, Failed). Text updates go through the desk.
func (d *Desk) Store() *proposal.Store { return d.store }

// Stage puts a run's staged (or restaged, or discarded) entry for f.Path
// into the store and rebases it onto the document as src has it now: the
// user may have typed while the run worked. A discarded entry (Pending
// false) drops what the store holds for the run and path.
func (d *Desk) Stage(src Source, runID string, f tools.StagedFile) {
	if !f.Pending() {
		d.Drop(runID, f.Path)
		return
	}
	d.mu.Lock()
	buf, open := src.Buffer(f.Path)
	var baseVersion *int32
	if open && buf.Text == f.Base {
		baseVersion = buf.Version
	}
	d.store.Put(runID, f.Path, f.Base, baseVersion, f.Text, f.Created)
	if open {
		d.store.DocumentChanged(f.Path, buf.Version, buf.Text)
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	d.resyncClosed(src, f.Path)
}

// Drop removes runID's proposal for path, if there is one (a Put whose
// proposed text equals its base removes it). Select, not List: a
// snapshot would join the document's text for nothing.
func (d *Desk) Drop(runID, path string) {
	if len(d.store.Select(proposal.Filter{RunID: runID, Path: path})) > 0 {
		d.store.Put(runID, path, "", nil, "", false)
	}
}

// ForgetRun is called when a run ends and its proposals have been handed
// over (or the run is dropped); its pending hunks stay in review.
func (d *Desk) ForgetRun(runID string) { d.store.ForgetRun(runID) }

// Tracks reports whether the store holds proposals for path: one map
// lookup, no copy of the text (the fast path of every keystroke).
func (d *Desk) Tracks(path string) bool {
	_, ok := d.store.Revision(path)
	return ok
}

// Proposal returns runID's proposal for path.
func (d *Desk) Proposal(runID, path string) (proposal.Proposal, bool) {
	for _, p := range d.store.List(path) {
		if p.RunID == runID {
			return p, true
		}
	}
	return proposal.Proposal{}, false
}

// Opened is the hook of an editor opening path (after the face's view
// took the buffer): the store learns the version, and the buffer's text
// if it differs from the disk text the proposal was made against.
func (d *Desk) Opened(path string, version *int32, content string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Tracks(path) {
		d.store.DocumentChanged(path, version, content)
	}
}

// Closed is the hook of an editor closing path, or of path changing on
// disk while no editor has it open: the document is the file again.
func (d *Desk) Closed(src Source, path string) {
	if d.Tracks(path) {
		d.resyncClosed(src, path)
	}
}

// Change is the hook of an editor changing an open document: apply
// updates the face's own view of it, and when path has proposals the
// exact changes go to the store (DocumentChangedLSP), which applies them
// to its own copy: neither side builds the whole text per keystroke. Both
// happen under the desk's lock, so the store's text is the view's as
// long as every update goes through the desk. The one that does not is
// an accept landing (the face's edit, recorded once the view shows it):
// the store's revision, read before apply, tells when it came first, and
// the store is then resynced from src's buffer.
func (d *Desk) Change(src Source, path string, version int32, changes []text.Change, enc text.Encoding, apply func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	rev, tracked := d.store.Revision(path)
	if err := apply(); err != nil || !tracked {
		return err
	}
	if err := d.store.DocumentChangedLSP(path, rev, &version, changes, enc); err != nil {
		if errors.Is(err, proposal.ErrStale) {
			d.log.Debug("an accept landed before its change; resyncing proposals", "path", path)
		} else { // unreachable: the view accepted the same changes
			d.log.Warn("proposal rebase refused a change the view accepted; resyncing", "path", path, "err", err)
		}
		if buf, open := src.Buffer(path); open {
			d.store.DocumentChanged(path, buf.Version, buf.Text)
		}
	}
	return nil
}

// Resync tells the store path's current text: the open buffer, else
// the file.
func (d *Desk) Resync(src Source, path string) {
	d.mu.Lock()
	buf, open := src.Buffer(path)
	if open {
		d.store.DocumentChanged(path, buf.Version, buf.Text)
	}
	d.mu.Unlock()
	if !open {
		d.resyncClosed(src, path)
	}
}

// resyncClosed tells the store the file's text if no editor buffer
// holds it (read outside the lock).
func (d *Desk) resyncClosed(src Source, path string) {
	doc, err := src.Read(path)
	if err != nil {
		d.log.Warn("cannot read file with proposals", "path", path, "err", err)
		return
	}
	if doc.Open {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, open := src.Buffer(path); !open {
		d.store.DocumentChanged(path, nil, doc.Text)
	}
}

// Suggest puts a next-edit suggestion of source for path (proposed: what
// the model's edits make of base) into the store in place of the
// document's earlier one, rebased onto the open buffer; a suggestion
// that changes nothing, or one for a document no editor has open, drops
// the earlier one.
func (d *Desk) Suggest(src Source, source, path, base, proposed string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	buf, open := src.Buffer(path)
	if !open || base == proposed {
		d.store.DropSuggestion(source, path)
		return
	}
	var baseVersion *int32
	if buf.Text == base {
		baseVersion = buf.Version
	}
	if d.store.Suggest(source, path, base, baseVersion, proposed) != "" {
		d.store.DocumentChanged(path, buf.Version, buf.Text)
	}
}
