package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

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

// reportMain implements `agentls report`.
func reportMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agentls report", flag.ContinueOnError)
	dirFlag := fs.String("dir", ".", "workspace `directory` (for its newest run)")
	session := fs.String("session", "", "report every run of session `ID`")
	out := fs.String("o", "", "write the page to `file`")
	transcripts := fs.String("transcripts", "", "transcript `directory` (default: the state directory's runs/)")
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
	if err != nil {
		fmt.Fprintf(stderr, "agentls report: %v\n", err) // stderr escapes control characters (terminalSafe)
		return 1
	}
	fmt.Fprintln(stdout, path)
	return 0
}
