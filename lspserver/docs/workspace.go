package docs

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/core"
)

// workspaceState is the ordered list of workspace folders (absolute paths).
type workspaceState struct {
	mu      sync.Mutex
	folders []string
}

// Folders returns the workspace folders as the editor gave them (absolute
// paths, first one first).
func (d *Docs) Folders() []string {
	d.ws.mu.Lock()
	defer d.ws.mu.Unlock()
	return slices.Clone(d.ws.folders)
}

// SetFolders replaces the folder list: the view's confinement changes at
// once, the watcher catches up in the background.
func (d *Docs) SetFolders(folders []string) {
	d.ws.mu.Lock()
	old := d.ws.folders
	d.ws.folders = slices.Clone(folders)
	d.view.SetFolders(folders)
	d.ws.mu.Unlock()
	d.core.ActionsChanged()

	for _, f := range old {
		if !slices.Contains(folders, f) {
			d.watch.Remove(f)
		}
	}
	for _, f := range folders {
		if !slices.Contains(old, f) {
			d.watch.Add(f)
		}
	}
}

// InitialFolders takes initialize's workspaceFolders, else rootUri, else
// rootPath. Non-file URIs are skipped with a log line.
func InitialFolders(p *protocol.InitializeParams, log *slog.Logger) []string {
	var out []string
	if wf, ok := p.WorkspaceFolders.Get(); ok && len(wf) > 0 {
		for _, f := range wf {
			if path, ok := core.FilePath(f.URI); ok {
				out = appendUnique(out, path)
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
	folders := d.Folders()
	for _, f := range p.Event.Removed {
		if path, ok := core.FilePath(f.URI); ok {
			folders = slices.DeleteFunc(folders, func(x string) bool { return x == path })
		}
	}
	for _, f := range p.Event.Added {
		if path, ok := core.FilePath(f.URI); ok {
			folders = appendUnique(folders, path)
		} else {
			d.log.Warn("ignoring non-file workspace folder", "uri", string(f.URI))
		}
	}
	d.SetFolders(folders)
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

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
