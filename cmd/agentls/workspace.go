package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/redact"
)

// trustWorkspaceUsage documents --trust-workspace for run and mcp.
const trustWorkspaceUsage = "trust DIR/.agentls/config.json for this invocation (its endpoint, key choice, MCP servers, looser tool settings)"

// loadWorkspace resolves a subcommand's --dir (it must be a directory) and
// loads the configuration for it, printing config warnings to stderr as
// "agentls NAME: warning: …". ok is false when --dir is unusable (already
// reported; exit 2). A configuration error is returned, not printed: the
// Config stays usable (broken sources are skipped) and each subcommand
// decides whether that is fatal.
//
// Workspace trust (agent/config trust.go): keys of DIR/.agentls/config.json
// that act on the user's behalf apply when the user trusted that content
// before, when trustAll (--trust-workspace, this invocation only), or when
// the user says yes to the question asked on the terminal (remembered in
// the state directory). Without a terminal the file stays untrusted, and
// the one warning from Load says which keys were ignored and how to trust.
func loadWorkspace(name, dirFlag string, trustAll bool, stdin io.Reader, stderr io.Writer) (dir string, cfg config.Config, cfgErr error, ok bool) {
	dir, err := filepath.Abs(dirFlag)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(dir); err == nil && !st.IsDir() {
			err = fmt.Errorf("%s is not a directory", dir)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls %s: --dir: %v\n", name, err)
		return "", config.Config{}, nil, false
	}
	trust := &config.Trust{All: trustAll}
	load := func() (config.Config, []string, error) {
		return config.Load(config.LoadOptions{Folders: []string{dir}, Trusted: trust.Trusted})
	}
	cfg, warnings, cfgErr := load()
	if un := cfg.Untrusted(); len(un) > 0 && isTerminal(stdin) && isTerminal(stderr) {
		if askTrust(name, un, trust, bufio.NewReader(stdin), stderr) {
			cfg, warnings, cfgErr = load()
		}
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agentls %s: warning: %s\n", name, redact.Text(w))
	}
	return dir, cfg, cfgErr, true
}

// askTrust asks on the terminal whether to trust each untrusted file,
// naming what trusting would do, and remembers a yes. It reports whether
// anything was trusted.
func askTrust(name string, un []config.Untrusted, trust *config.Trust, in *bufio.Reader, out io.Writer) bool {
	trusted := false
	for _, u := range un {
		if !trust.FirstAsk(u) {
			continue
		}
		fmt.Fprintf(out, "agentls %s: %s\n", name, config.TrustQuestion(u))
		fmt.Fprint(out, "Trust this file (remembered until it changes)? [y/N] ")
		line, _ := in.ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			continue
		}
		if err := trust.Grant(u); err != nil {
			fmt.Fprintf(out, "agentls %s: warning: trusted for this run only: %v\n", name, err)
		}
		trusted = true
	}
	return trusted
}
