// Package docs is the documents part of agentls's LSP server: the
// editor's open buffers become overlays of the workspace view
// (textsync.go, with the strict didChange decoder in textsync_decode.go),
// so everything agentls reads of an open file is what the user sees; it
// also keeps the workspace folders (workspace.go), drives the fsnotify
// watcher (watcher.go, through internal/watch's Folders), answers
// agentls/document (document.go), hands the memory of closed documents
// back (internal/reclaim), maps the editor's names of files (a symlink)
// to URIs and back through the view's table (docs.go), and builds the
// WorkspaceEdit that review's accept and runs' apply mode send
// (edits.go).
//
// Other parts follow the documents through the Follower interface (review
// rebases proposals on every keystroke), wired by lspserver; docs imports
// only lspserver/core and internal/ packages.
package docs
