package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentls/agentls/acpserver"
)

const acpUsage = `usage: agentls acp [--log-file FILE] [--log-level LEVEL]

Serves the Agent Client Protocol (ACP v1, one JSON-RPC message per line)
on stdin/stdout, for editors that host agents over ACP: Zed, JetBrains,
Neovim (CodeCompanion, avante.nvim), Emacs (agent-shell). The editor
starts it; see docs/acp.md for each editor's setup. The model and
everything else come from the same configuration as the language server
(~/.config/agentls/config.json, the workspace's .agentls/config.json, the
environment). Sessions are the same as the language server's.

flags:
`

// acpTTYHint is printed when someone starts `agentls acp` by hand.
const acpTTYHint = `agentls acp: this speaks the Agent Client Protocol on stdin/stdout and is started by your editor (docs/acp.md: Zed, JetBrains, Neovim, Emacs).
agentls acp: waiting for ACP messages, one JSON object per line; Ctrl-C quits.
`

// acpFlagSet is acp's flags, shared by parsing, help and completion.
func acpFlagSet(logFile, logLevel *string) *flag.FlagSet {
	fs := flag.NewFlagSet("agentls acp", flag.ContinueOnError)
	fs.StringVar(logFile, "log-file", "", "append logs to `file` instead of stderr")
	fs.StringVar(logLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	return fs
}

// acpMain serves ACP on stdin/stdout (`agentls acp`). It returns 0 when
// the client closes the connection, 2 for bad flags, 1 for unreadable
// input.
func acpMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var logFile, logLevel string
	fs := acpFlagSet(&logFile, &logLevel)
	usage := func(w io.Writer) { fmt.Fprint(w, acpUsage); printFlags(w, fs) }
	if code := parseFlags(fs, args, usage, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls acp: unexpected arguments %q\n", fs.Args())
		return 2
	}
	logger, closeLog, err := newLogger(logFile, logLevel, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agentls acp: %v\n", err)
		return 2
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if isTerminal(stdin) {
		fmt.Fprint(stderr, acpTTYHint)
	}
	logger.Info("agentls acp starting", "version", currentVersion(), "pid", os.Getpid())
	err = acpserver.New(acpserver.Options{Version: currentVersion(), Logger: logger}).Serve(ctx, stdin, stdout)
	if err != nil && ctx.Err() == nil {
		logger.Error("agentls acp: connection failed", "err", err)
		return 1
	}
	logger.Info("agentls acp exiting")
	return 0
}
