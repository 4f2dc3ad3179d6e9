package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// cliSession is the session an `agentls run` works in, with its saved
// proposals (changes earlier runs left pending).
type cliSession struct {
	session   *agent.Session
	store     *agent.SessionStore // nil: not opened yet (a new session), or not saved
	stateDir  string              // where a new session's store is opened when it is saved
	logger    *slog.Logger
	proposals []agent.SavedProposal
	dir       string // the workspace, named in the command that continues the session
}

// openCLISession opens the session store of dir and the session the
// flags ask for: a new one, the latest (--continue) or --session ID. It
// returns an exit code >= 0 when the command should stop. Without a
// usable state directory a new session still runs (with a warning), but
// nothing can be continued.
func openCLISession(f runFlags, dir string, logger *slog.Logger, stderr io.Writer) (*cliSession, int) {
	cs := &cliSession{dir: dir, logger: logger}
	stateDir, err := agent.DefaultStateDir(nil)
	if err == nil && (f.cont || f.session != "") {
		cs.store, err = agent.OpenSessionStore(stateDir, dir, logger)
	}
	if err != nil {
		if f.cont || f.session != "" {
			fmt.Fprintf(stderr, "agentls run: cannot continue a session: %v\n", err)
			return nil, 2
		}
		fmt.Fprintf(stderr, "agentls: warning: this run's session is not saved: %v\n", err)
		cs.session = agent.NewSession("")
		return cs, -1
	}
	switch {
	case f.session != "":
		r, err := cs.store.LoadOne(f.session)
		if err != nil {
			fmt.Fprintf(stderr, "agentls run: no session %q for %s ('agentls sessions --dir %s' lists them): %v\n", f.session, dir, dir, err)
			return nil, 2
		}
		cs.session, cs.proposals = r.Session, r.Proposals
	case f.cont:
		all := cs.store.Load()
		if len(all) == 0 {
			fmt.Fprintf(stderr, "agentls run: --continue: no saved session for %s\n", dir)
			return nil, 2
		}
		cs.session, cs.proposals = all[0].Session, all[0].Proposals
	default:
		// The store is opened when the session is saved: a run that
		// saves nothing (a failed replay) leaves no session directory.
		cs.session, cs.stateDir = agent.NewSession(""), stateDir
	}
	return cs, -1
}

// states tells a follow-up run which of its changes are still pending.
func (cs *cliSession) states() []agent.ProposalState {
	var out []agent.ProposalState
	for _, p := range cs.proposals {
		out = append(out, agent.ProposalState{RunID: p.RunID, Path: p.Path, Pending: max(1, len(text.Diff(p.Base, p.Proposed, text.UTF8)))})
	}
	return out
}

// save writes the session: earlier pending proposals stay, and this run's
// changes join them, except the files --apply wrote.
func (cs *cliSession) save(changes *tools.Changeset, written []string, cfg config.Config, stderr io.Writer) {
	if cs.store == nil && cs.stateDir != "" {
		st, err := agent.OpenSessionStore(cs.stateDir, cs.dir, cs.logger)
		if err != nil {
			fmt.Fprintf(stderr, "agentls: warning: session not saved: %v\n", err)
			return
		}
		cs.store = st
	}
	if cs.store == nil {
		return
	}
	props := slices.Clone(cs.proposals)
	for _, path := range changes.Files() {
		f, ok := changes.Get(path)
		if !ok || !f.Pending() || slices.Contains(written, path) {
			continue
		}
		props = slices.DeleteFunc(props, func(p agent.SavedProposal) bool { return p.Path == path && p.Base == f.Base })
		props = append(props, agent.SavedProposal{RunID: runIDOf(cs.session), Path: path, Base: f.Base, Proposed: f.Text, Created: f.Created})
	}
	if err := cs.store.Save(cs.session, props, agent.NewRedactor(cfg.APIKey())); err != nil {
		fmt.Fprintf(stderr, "agentls: warning: session not saved: %v\n", err)
		return
	}
	fmt.Fprintf(stderr, "agentls: session %s (continue with: agentls run --dir %s --session %s PROMPT)\n", cs.session.ID(), safetext.ShellQuote(cs.dir), cs.session.ID())
}

// runIDOf is the session's latest run.
func runIDOf(s *agent.Session) string {
	runs := s.Info().Runs
	if len(runs) == 0 {
		return ""
	}
	return runs[len(runs)-1]
}

const sessionsUsage = `usage: agentls sessions [--dir DIR]

Lists the saved agent sessions of the workspace DIR (default: the current
directory), newest first: id, last update, runs, pending changes, title.
The editor and 'agentls run --continue / --session ID' continue them.

flags:
`

// sessionsFlagSet is sessions' flags, shared by parsing, help and completion.
func sessionsFlagSet(dir *string) *flag.FlagSet {
	fs := flag.NewFlagSet("agentls sessions", flag.ContinueOnError)
	fs.StringVar(dir, "dir", ".", "workspace `directory`")
	return fs
}

// sessionsMain lists the sessions of a workspace (`agentls sessions`).
func sessionsMain(args []string, stdout, stderr io.Writer) int {
	dirFlag := new(string)
	fs := sessionsFlagSet(dirFlag)
	usage := func(w io.Writer) { fmt.Fprint(w, sessionsUsage); printFlags(w, fs) }
	if code := parseFlags(fs, args, usage, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls sessions: unexpected arguments %q\n", fs.Args())
		return 2
	}
	dir, err := filepath.Abs(*dirFlag)
	if err != nil {
		fmt.Fprintf(stderr, "agentls sessions: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	stateDir, err := agent.DefaultStateDir(nil)
	if err != nil {
		fmt.Fprintf(stderr, "agentls sessions: %v\n", err)
		return 1
	}
	all := agent.ReadSessions(stateDir, dir, logger) // a listing creates nothing
	if len(all) == 0 {
		fmt.Fprintf(stderr, "agentls sessions: no saved session for %s\n", dir)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tRUNS\tPENDING\tTITLE")
	for _, r := range all {
		in := r.Session.Info()
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", in.ID, in.Updated.Local().Format(time.DateTime), len(in.Runs), len(r.Proposals), in.Title)
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return 0
}
