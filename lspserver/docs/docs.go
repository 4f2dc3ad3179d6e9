package docs

import (
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"sync"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/reclaim"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/watch"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
)

// Options configures the documents part.
type Options struct {
	// NoWatcher disables the fsnotify watcher (the view then validates
	// every read by stat, and didChangeWatchedFiles still invalidates).
	NoWatcher bool
}

// Docs is the documents part of the server: the editor's buffers as
// overlays of the workspace view, the workspace folders, watched files,
// and the editor's names for the files agentls proposes changes to.
type Docs struct {
	core *core.Server
	log  *slog.Logger
	view *workspace.View
	opts Options

	follower Follower // review's hooks; nil: documents are only synchronised

	ws      workspaceState
	watch   *watch.Folders  // keeps the view fresh from fsnotify
	reclaim *reclaim.Memory // hands the memory of closed documents back

	aliasMu   sync.RWMutex
	alias     map[string]string // editor key → real path, only where they differ (symlinks)
	editorKey map[string]string // real path → editor key, the inverse
}

// New returns the documents part of c's session, synchronising into view.
func New(c *core.Server, view *workspace.View, opts Options) *Docs {
	d := &Docs{core: c, log: c.Log(), view: view, opts: opts,
		alias: map[string]string{}, editorKey: map[string]string{}}
	d.watch = watch.NewFolders(view, d.log.With("component", "watch"))
	d.reclaim = reclaim.New(c.Go)
	return d
}

// Follower is told about every change of an open document, after the view
// took it (ChangeDocument applies it to the view itself), so proposals can
// follow the user's typing. The review part implements it; the root wires
// it with Follow. Every method runs on the read loop: it must be quick and
// must not call the client.
type Follower interface {
	// DocumentOpened: path (symlinks resolved) was opened at version with
	// content.
	DocumentOpened(path string, version int32, content string)
	// ChangeDocument applies a didChange to the view (View.Change) and
	// follows it; key is the editor's name of the document (DocKey).
	ChangeDocument(key string, version int32, changes []text.Change, enc text.Encoding) error
	// DocumentClosed: path's buffer is gone; the file on disk is the
	// document again.
	DocumentClosed(path string)
}

// Follow makes f follow the documents. Call it before Serve.
func (d *Docs) Follow(f Follower) { d.follower = f }

// View is the workspace view documents are synchronised into.
func (d *Docs) View() *workspace.View { return d.view }

// noteAlias records, for a document opened under a path that goes through
// a symlink, which real path (symlinks resolved, as tools stage them) it
// is, and returns that path.
func (d *Docs) noteAlias(key string) string {
	if !filepath.IsAbs(key) {
		return key
	}
	real, err := filepath.EvalSymlinks(key)
	if err != nil || real == key {
		d.dropAlias(key)
		return key
	}
	d.aliasMu.Lock()
	d.alias[key] = real
	d.editorKey[real] = key
	d.aliasMu.Unlock()
	return real
}

func (d *Docs) dropAlias(key string) {
	d.aliasMu.Lock()
	if real, ok := d.alias[key]; ok {
		delete(d.alias, key)
		if d.editorKey[real] == key {
			delete(d.editorKey, real)
		}
	}
	d.aliasMu.Unlock()
}

// StorePath maps an editor key (core.DocKey) to the real path the tools
// and the proposal store use (symlinks resolved for open documents).
func (d *Docs) StorePath(key string) string {
	d.aliasMu.RLock()
	real, ok := d.alias[key]
	d.aliasMu.RUnlock()
	if ok {
		return real
	}
	return key
}

// PathOf is the real path of a document URI.
func (d *Docs) PathOf(u uri.URI) string { return d.StorePath(core.DocKey(u)) }

// URIOf is the URI to show the editor for a real path: the one it opened
// the document under when that differs (a symlink), else the file's URI.
func (d *Docs) URIOf(path string) uri.URI {
	d.aliasMu.RLock()
	key, ok := d.editorKey[path]
	d.aliasMu.RUnlock()
	if !ok {
		key = path
	}
	if filepath.IsAbs(key) {
		return uri.File(key)
	}
	return uri.URI(key)
}

// AliasSizes returns the sizes of the alias maps, for tests proving
// didClose empties them.
func (d *Docs) AliasSizes() (alias, editorKey int) {
	d.aliasMu.RLock()
	defer d.aliasMu.RUnlock()
	return len(d.alias), len(d.editorKey)
}

// DiskText reads path through the view: its disk text ("" when it does
// not exist), or open=true when the editor has it open after all.
func (d *Docs) DiskText(path string) (content string, open bool, err error) {
	snap, err := d.view.Read(path)
	switch {
	case err == nil:
		return snap.Text, snap.Open, nil
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	default:
		return "", false, err
	}
}
