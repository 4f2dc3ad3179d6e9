package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/revert"
	"github.com/agentls/agentls/internal/workspace"
)

const revertUsage = `usage: agentls revert [--dir DIR] RUN_ID

Takes back every change of a run that landed (made with --apply, accepted
in an editor, or allowed over ACP): each file on disk returns to what it
was before the run, except lines changed since, which are left alone and
reported. A file the run created is deleted only if unchanged. The run's
session is told on its next run. In an editor with the files open, prefer
the editor's revert (agentls.revert), which edits its buffers.

flags:
`

// revertFlagSet is revert's flags, shared by parsing, help and completion.
func revertFlagSet(dir *string) *flag.FlagSet {
	fs := flag.NewFlagSet("agentls revert", flag.ContinueOnError)
	fs.StringVar(dir, "dir", ".", "workspace `directory` the run worked in")
	return fs
}

// revertMain implements `agentls revert`. Exit status: 0 when everything
// was reverted, 1 when something was left alone or failed, 2 for usage.
func revertMain(args []string, stdout, stderr io.Writer) int {
	dirFlag := new(string)
	flags := revertFlagSet(dirFlag)
	usage := func(w io.Writer) { fmt.Fprint(w, revertUsage); printFlags(w, flags) }
	if code := parseFlags(flags, args, usage, stdout, stderr); code >= 0 {
		return code
	}
	if flags.NArg() != 1 {
		fmt.Fprintln(stderr, "agentls revert: want one RUN_ID (usage: agentls revert [--dir DIR] RUN_ID; see agentls help revert)")
		return 2
	}
	runID := flags.Arg(0)
	dir, err := filepath.Abs(*dirFlag)
	if err != nil {
		fmt.Fprintf(stderr, "agentls revert: %v\n", err)
		return 2
	}
	store := revert.NewStore("")
	view := workspace.New(workspace.Options{Folders: []string{dir}})
	rv, err := revert.Run(store, runID, revert.OnDisk(view), true)
	if err != nil {
		fmt.Fprintf(stderr, "agentls revert: %v\n", err)
		return 1
	}
	if len(rv.Changes)+len(rv.Left) == 0 { // already reverted
		fmt.Fprintf(stderr, "agentls revert: %s\n", rv.Note)
		return 0
	}
	rv.Land(func(c revert.Change) error { return revert.LandOnDisk(view, c) })
	for _, l := range rv.Left {
		if strings.Contains(l.Conflict, "too large") {
			fmt.Fprintf(stderr, "agentls revert: %s: %s; left alone\n", l.Path, l.Conflict)
		}
	}
	done := rv.Done()
	summary, err := agent.Reverted(store, runID, done, rv.Left, "", nil)
	fmt.Fprint(stdout, summary)
	if err != nil {
		fmt.Fprintf(stderr, "agentls revert: %v\n", err)
	}
	if len(done) > 0 {
		noteRevert(dir, rv.SessionID, runID, summary, stderr)
	}
	fmt.Fprintf(stderr, "agentls revert: reverted %d of %d file(s) of run %s\n", len(done), rv.Files, runID)
	if len(rv.Conflicts()) > 0 {
		return 1
	}
	return 0
}

// noteRevert tells the run's session (if saved) what was reverted.
func noteRevert(dir, sessionID, runID, summary string, stderr io.Writer) {
	stateDir, _ := agent.DefaultStateDir(nil)
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := agent.NoteRevertSaved(stateDir, dir, sessionID, runID, summary, logger); err != nil {
		fmt.Fprintf(stderr, "agentls revert: warning: %v\n", err)
	}
}
