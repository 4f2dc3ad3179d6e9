package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/agentls/agentls/agent/report"
)

const reportUsage = `usage: agentls report [--dir DIR] [RUN_ID | --session ID] [-o FILE]

Renders a run's transcript as one self-contained HTML page (no external
resources; opens offline) and prints its path. Without RUN_ID or --session:
the newest run made in the workspace DIR. --session: every run of that
session, in order. The page is written beside the transcript in the state
directory unless -o says where.

flags:
`

// reportFlags are the parsed flags of `agentls report`.
type reportFlags struct{ dir, session, out, transcripts string }

// reportFlagSet is report's flags, shared by parsing, help and completion.
func reportFlagSet(f *reportFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("agentls report", flag.ContinueOnError)
	fs.StringVar(&f.dir, "dir", ".", "workspace `directory` (for its newest run)")
	fs.StringVar(&f.session, "session", "", "report every run of session `ID`")
	fs.StringVar(&f.out, "o", "", "write the page to `file`")
	fs.StringVar(&f.transcripts, "transcripts", "", "transcript `directory` (default: the state directory's runs/)")
	return fs
}

// reportMain implements `agentls report`.
func reportMain(args []string, stdout, stderr io.Writer) int {
	var rf reportFlags
	fs := reportFlagSet(&rf)
	dirFlag, session, out, transcripts := &rf.dir, &rf.session, &rf.out, &rf.transcripts
	usage := func(w io.Writer) { fmt.Fprint(w, reportUsage); printFlags(w, fs) }
	if code := parseFlags(fs, args, usage, stdout, stderr); code >= 0 {
		return code
	}
	var runID string
	if fs.NArg() > 0 { // RUN_ID, possibly followed by more flags
		runID = fs.Arg(0)
		if code := parseFlags(fs, fs.Args()[1:], usage, stdout, stderr); code >= 0 {
			return code
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "agentls report: unexpected arguments %q\n", fs.Args())
			return 2
		}
	}
	dir, err := filepath.Abs(*dirFlag)
	if err != nil {
		fmt.Fprintf(stderr, "agentls report: %v\n", err)
		return 2
	}
	path, err := report.Generate(report.Request{Dir: *transcripts, Folder: dir, RunID: runID, SessionID: *session, Output: *out})
	if err != nil && runID == "" && *session == "" && errors.Is(err, iofs.ErrNotExist) {
		listRunsBelow(*transcripts, dir, stderr)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls report: %v\n", err) // stderr escapes control characters (terminalSafe)
		return 1
	}
	fmt.Fprintln(stdout, path)
	return 0
}

// listRunsBelow answers `agentls report` in a folder with no runs (the
// clone's root, when the run was in examples/hello) with the latest run
// of each workspace below it, so the next command is one copy away.
func listRunsBelow(transcripts, dir string, stderr io.Writer) {
	runs, err := report.RunsBelow(transcripts, dir, 10)
	if err != nil || len(runs) == 0 {
		fmt.Fprintf(stderr, "agentls report: no run in %s nor in a workspace below it (a run of agentls run, the editor or ACP writes one)\n", dir)
		return
	}
	fmt.Fprintf(stderr, "agentls report: no run in %s; the latest runs of workspaces below it:\n", dir)
	tw := tabwriter.NewWriter(stderr, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  RUN\tTIME\tWORKSPACE")
	for _, r := range runs {
		folder := r.Folder
		if rel, err := filepath.Rel(dir, r.Folder); err == nil {
			folder = rel
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.ID, r.Time.Local().Format(time.DateTime), folder)
	}
	_ = tw.Flush()
	fmt.Fprintf(stderr, "agentls report: make a run's page with: agentls report %s (or agentls report --dir WORKSPACE for its latest)\n", runs[0].ID)
}
