package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/atomicfile"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

const rememberUsage = `usage: agentls remember [--dir DIR] [--scope project|user] [--apply] NOTE

Adds NOTE as a bullet to the project's AGENTS.md (DIR/AGENTS.md, created
when missing) or, with --scope user, to your own AGENTS.md
($XDG_CONFIG_HOME/agentls/AGENTS.md), which every workspace's runs read.
Like agentls run, it prints the change as a diff and writes it only with
--apply. A note already there is not added twice.

flags:
`

// rememberFlags are the flags of `agentls remember`.
type rememberFlags struct {
	dir, scope string
	apply      bool
}

// rememberFlagSet is the one definition of remember's flags (parser, help
// and completion).
func rememberFlagSet(f *rememberFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("agentls remember", flag.ContinueOnError)
	fs.StringVar(&f.dir, "dir", ".", "workspace `directory`")
	fs.StringVar(&f.scope, "scope", "project", "`project` (DIR/AGENTS.md) or user (your own AGENTS.md)")
	fs.BoolVar(&f.apply, "apply", false, "write the change (default: only print the diff)")
	return fs
}

// rememberMain implements `agentls remember`. Exit status: 0 when the
// diff was shown (and, with --apply, written) or the note was already
// there, 1 on failure, 2 for usage.
func rememberMain(args []string, stdout, stderr io.Writer) int {
	var rf rememberFlags
	flags := rememberFlagSet(&rf)
	dirFlag, scope, apply := &rf.dir, &rf.scope, &rf.apply
	usage := func(w io.Writer) { fmt.Fprint(w, rememberUsage); printFlags(w, flags) }
	if code := parseFlags(flags, args, usage, stdout, stderr); code >= 0 {
		return code
	}
	if flags.NArg() != 1 {
		fmt.Fprintln(stderr, "agentls remember: give the NOTE as one argument (usage: agentls remember [flags] NOTE; see agentls help remember)")
		return 2
	}
	note, err := tools.NormalizeNote(flags.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "agentls remember: %v\n", err)
		return 2
	}
	var path, rel string
	var view *workspace.View
	switch *scope {
	case "project":
		dir, err := filepath.Abs(*dirFlag)
		if err != nil {
			fmt.Fprintf(stderr, "agentls remember: %v\n", err)
			return 2
		}
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			fmt.Fprintf(stderr, "agentls remember: %v\n", err)
			return 1
		}
		view = workspace.New(workspace.Options{Folders: []string{dir}})
		path, rel = filepath.Join(dir, tools.RulesFile), tools.RulesFile
	case "user":
		// The user's own file, named by them on the command line: the
		// one write outside a workspace, and only here, never by a tool.
		if path = agent.UserRulesPath(nil); path == "" {
			fmt.Fprintln(stderr, "agentls remember: neither XDG_CONFIG_HOME nor a home directory is known")
			return 1
		}
		rel = path
	default:
		fmt.Fprintf(stderr, "agentls remember: --scope must be project or user, not %q\n", *scope)
		return 2
	}
	before, err := os.ReadFile(path)
	created := errors.Is(err, fs.ErrNotExist)
	if err != nil && !created {
		fmt.Fprintf(stderr, "agentls remember: %v\n", err)
		return 1
	}
	f, added := tools.NoteChange(path, string(before), !created, note)
	if !added {
		fmt.Fprintf(stderr, "agentls remember: %s already holds this rule; nothing to change\n", path)
		return 0
	}
	fmt.Fprint(stdout, f.Unified(rel))
	if !*apply {
		fmt.Fprintln(stderr, "agentls remember: not written; run again with --apply to write it")
		return 0
	}
	if view != nil {
		err = tools.WriteConfined(view, path, f.Base, f.Created, f.Text)
	} else {
		err = writeUserRules(path, f.Text)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls remember: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "agentls remember: wrote %s\n", path)
	return 0
}

// writeUserRules writes the user's AGENTS.md through the one atomic write
// (internal/atomicfile), creating its folder; owner-only, like the file a
// temporary-file rename left before.
func writeUserRules(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	return atomicfile.WriteFile(path, []byte(text), 0o600)
}
