package docs

// StartWatcher starts the fsnotify watcher's worker (internal/watch
// Folders), which SetFolders feeds; with Options.NoWatcher queued folders
// are never watched.
func (d *Docs) StartWatcher() {
	if d.opts.NoWatcher {
		return
	}
	d.core.Go("folder watcher", d.watch.Run)
}
