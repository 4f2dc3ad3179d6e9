package docs

import (
	"log/slog"
	"path/filepath"

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

	watch   *watch.Folders  // the folders; keeps the view fresh from fsnotify
	reclaim *reclaim.Memory // hands the memory of closed documents back
}

// New returns the documents part of c's session, synchronising into view.
func New(c *core.Server, view *workspace.View, opts Options) *Docs {
	d := &Docs{core: c, log: c.Log(), view: view, opts: opts}
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

// StorePath maps an editor key (core.DocKey) to the real path the tools
// and the proposal store use (the view's BufferPath: symlinks resolved for
// open documents).
func (d *Docs) StorePath(key string) string { return d.view.BufferPath(key) }

// PathOf is the real path of a document URI.
func (d *Docs) PathOf(u uri.URI) string { return d.StorePath(core.DocKey(u)) }

// URIOf is the URI to show the editor for a real path: the one it opened
// the document under when that differs (a symlink), else the file's URI.
func (d *Docs) URIOf(path string) uri.URI {
	key := d.view.BufferKey(path)
	if filepath.IsAbs(key) {
		return uri.File(key)
	}
	return uri.URI(key)
}

// AliasSizes returns the size of the editor-name table (the view's
// symlink aliases, both ways), for tests proving didClose empties it.
func (d *Docs) AliasSizes() (alias, editorKey int) {
	_, n := d.view.BufferMaps()
	return n, n
}

// DiskText reads path through the view: its text ("" when it does not
// exist), and open=true when the editor has it open after all.
func (d *Docs) DiskText(path string) (content string, open bool, err error) {
	snap, _, err := d.view.ReadOrNone(path)
	return snap.Text, snap.Open, err
}
