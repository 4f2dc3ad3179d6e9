package docs

import (
	"context"
	"log/slog"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/watch"
	"github.com/agentls/agentls/lspserver/core"
)

// Folders returns the workspace folders as the editor gave them (absolute
// paths, first one first).
func (d *Docs) Folders() []string { return d.watch.List() }

// SetFolders replaces the folder list: the view's confinement changes at
// once, the watcher catches up in the background.
func (d *Docs) SetFolders(folders []string) {
	d.watch.Set(folders)
	d.core.ActionsChanged()
}

// InitialFolders takes initialize's workspaceFolders, else rootUri, else
// rootPath. Non-file URIs are skipped with a log line.
func InitialFolders(p *protocol.InitializeParams, log *slog.Logger) []string {
	var out []string
	if wf, ok := p.WorkspaceFolders.Get(); ok && len(wf) > 0 {
		for _, f := range wf {
			if path, ok := core.FilePath(f.URI); ok {
				out = watch.AppendFolders(out, path)
			} else {
				log.Warn("ignoring non-file workspace folder", "uri", string(f.URI))
			}
		}
		return out
	}
	//lint:ignore SA1019 rootUri/rootPath are the fallback for clients without workspaceFolders
	rootURI, rootPath := p.RootURI, p.RootPath
	if rootURI != nil && *rootURI != "" {
		if path, ok := core.FilePath(*rootURI); ok {
			return []string{path}
		}
		log.Warn("ignoring non-file rootUri", "uri", string(*rootURI))
	}
	if rp, ok := rootPath.Get(); ok && rp != "" {
		return []string{core.CleanAbs(rp)}
	}
	return nil
}

// DidChangeWorkspaceFolders is workspace/didChangeWorkspaceFolders.
func (d *Docs) DidChangeWorkspaceFolders(_ context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	var removed, added []string
	for _, f := range p.Event.Removed {
		if path, ok := core.FilePath(f.URI); ok {
			removed = append(removed, path)
		}
	}
	for _, f := range p.Event.Added {
		if path, ok := core.FilePath(f.URI); ok {
			added = append(added, path)
		} else {
			d.log.Warn("ignoring non-file workspace folder", "uri", string(f.URI))
		}
	}
	folders := d.watch.Change(removed, added)
	d.core.ActionsChanged()
	d.log.Info("workspace folders changed", "folders", folders)
	return nil
}

// watchedFilesRegistrationID identifies agentls's dynamic registration of
// workspace/didChangeWatchedFiles.
const watchedFilesRegistrationID = "agentls/watchedFiles"

// RegisterWatchedFiles asks the editor to send workspace/didChangeWatchedFiles
// for every file. It runs on a server-owned goroutine after initialized:
// a server→client request cannot be made from the read loop.
func (d *Docs) RegisterWatchedFiles(ctx context.Context) {
	opts, err := protocol.Marshal(&protocol.DidChangeWatchedFilesRegistrationOptions{
		Watchers: []protocol.FileSystemWatcher{{GlobPattern: protocol.Pattern("**/*")}},
	})
	if err != nil {
		d.log.Error("marshal watcher registration", "err", err)
		return
	}
	err = d.core.Client().RegisterCapability(ctx, &protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:              watchedFilesRegistrationID,
		Method:          protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: opts,
	}}})
	if err != nil {
		d.log.Warn("editor refused didChangeWatchedFiles registration", "err", err)
		return
	}
	d.log.Debug("registered didChangeWatchedFiles")
}

// DidChangeWatchedFiles is workspace/didChangeWatchedFiles: the read
// cache forgets the files.
func (d *Docs) DidChangeWatchedFiles(_ context.Context, p *protocol.DidChangeWatchedFilesParams) error {
	for _, ch := range p.Changes {
		path, ok := core.FilePath(ch.URI)
		if !ok {
			continue
		}
		d.view.Invalidate(path)
		d.log.Debug("watched file changed", "path", path, "type", ch.Type)
	}
	return nil
}
