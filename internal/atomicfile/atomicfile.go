// Package atomicfile is agentls's one way to replace a file: every file
// agentls writes whole (sessions, workspace trust, OAuth tokens, revert
// snapshots, reports, cassettes, and the user's files under
// `agentls run --apply` or ACP, through workspace.View.WriteFile) goes
// through WriteFile or WriteAt, so a crash or a concurrent reader never
// sees half a file, and no caller can forget the fsync or the permissions.
package atomicfile
