// Command agentls is the agent language server. `agentls` or `agentls serve`
// speaks LSP on stdin/stdout; `agentls acp` speaks the Agent Client
// Protocol on stdin/stdout; `agentls run` runs one agent task headless;
// `agentls mcp` inspects the configured MCP servers; `agentls version`
// prints the version. Logs go to stderr or --log-file, never stdout (stdout
// is the LSP wire).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/internal/scratch"
	"github.com/agentls/agentls/lspserver"
)

// version is the release version, set at build time with
// -ldflags "-X main.version=v1.2.3"; see currentVersion for the fallback.
var version = ""

func main() {
	// agentls hands its own logger to everything it logs through; the
	// process default is used only by libraries that cannot be given one
	// (mcp-go's stdio transport logs read errors of a dying server at
	// ERROR), and their lines must not reach the user's stderr.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	// Proposal views are deleted in the background so that no run waits
	// for it; the process does, so it leaves none half-deleted.
	scratch.WaitRemovals()
	os.Exit(code)
}

// usage is printed for --help and, on stderr, for unknown subcommands.
const usage = `usage: agentls [serve] [flags]      serve LSP on stdin/stdout (what an editor starts)
       agentls run [flags] PROMPT     run one agent task headless
       agentls acp [flags]            serve the Agent Client Protocol on stdin/stdout (Zed, JetBrains, …)
       agentls sessions [--dir DIR]   list the saved agent sessions of a workspace
       agentls mcp [flags] ...        inspect configured MCP servers
       agentls report [RUN_ID]        render a run's transcript as an HTML page
       agentls revert RUN_ID          take back a run whose changes landed
       agentls remember [flags] NOTE  add a rule to AGENTS.md (diff; --apply writes)
       agentls version                print the version (also --version)
       agentls help COMMAND           print a command's help (as agentls COMMAND --help)
       agentls completion SHELL       print a completion script for bash, zsh or fish

flags for serve:
  --log-file FILE           append logs to FILE instead of stderr
  --log-level LEVEL         debug, info, warn or error (default: warn on stderr,
                            info in a --log-file)
`

// run dispatches the subcommand and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	if cmd == "serve" && len(args) == 1 {
		switch args[0] {
		case "--version", "-version", "-v":
			cmd, args = "version", nil
		}
	}
	if cmd != "serve" { // serve's stdout is the LSP wire: never touched
		stdout, stderr = terminalSafe(stdout, stderr)
		defer flush(stdout, stderr)
	}
	return dispatch(cmd, args, stdin, stdout, stderr)
}

// dispatch runs the subcommand cmd.
func dispatch(cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch cmd {
	case "serve":
		return serveMain(args, stdin, stdout, stderr)
	case "run":
		return runMain(args, stdin, stdout, stderr)
	case "acp":
		return acpMain(args, stdin, stdout, stderr)
	case "sessions":
		return sessionsMain(args, stdout, stderr)
	case "mcp":
		return mcpMain(args, stdin, stdout, stderr)
	case "report":
		return reportMain(args, stdout, stderr)
	case "revert":
		return revertMain(args, stdout, stderr)
	case "remember":
		return rememberMain(args, stdout, stderr)
	case "version":
		if isHelp(args) {
			fmt.Fprint(stdout, versionUsage)
			return 0
		}
		fmt.Fprintf(stdout, "agentls %s\n", currentVersion())
		return 0
	case "help":
		if isHelp(args) {
			fmt.Fprint(stdout, helpUsage)
			return 0
		}
		return helpMain(args, stdin, stdout, stderr)
	case "completion":
		return completionMain(args, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "agentls: unknown command %q; the commands are %s (see agentls help)\n", cmd, strings.Join(commandNames(), ", "))
		return 2
	}
}

// terminalSafe escapes control characters (safetext.Text) in everything
// the CLI prints for people: file contents in diffs, model text, tool
// results, MCP descriptions and workspace configuration reach the user's
// terminal, where an ESC sequence could rewrite a prompt or (OSC 52) the
// clipboard. stderr is always for people; stdout is escaped when it is a
// terminal and left as it is when it is data for a pipe or a file (a
// diff to apply keeps its bytes).
func terminalSafe(stdout, stderr io.Writer) (io.Writer, io.Writer) {
	if isTerminal(stdout) {
		stdout = safetext.NewWriter(stdout)
	}
	return stdout, safetext.NewWriter(stderr)
}

// flush writes what the escaping writers held back (a stream ending in
// the middle of a character).
func flush(ws ...io.Writer) {
	for _, w := range ws {
		if sw, ok := w.(*safetext.Writer); ok {
			_ = sw.Flush()
		}
	}
}

// ttyHint is printed when someone starts the server by hand: without it
// the process waits silently for LSP frames and then fails on the first
// line typed.
const ttyHint = `agentls: this is a language server: it speaks LSP on stdin/stdout and is started by your editor (see README "Editors").
agentls: to try a task from the shell: agentls run --dir DIR "PROMPT" (agentls run --help). Waiting for LSP input; Ctrl-C quits.
`

// serveFlagSet is serve's flags, shared by parsing, help and completion.
func serveFlagSet(logFile, logLevel *string) *flag.FlagSet {
	fs := flag.NewFlagSet("agentls serve", flag.ContinueOnError)
	fs.StringVar(logFile, "log-file", "", "append logs to `file` instead of stderr")
	fs.StringVar(logLevel, "log-level", "", "log `level`: debug, info, warn or error (default: warn on stderr, info in a --log-file)")
	return fs
}

// serveMain serves LSP on stdin/stdout and returns the exit code LSP
// prescribes: 0 after shutdown+exit, 1 otherwise, 2 for unreadable input.
func serveMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var logFile, logLevel string
	fs := serveFlagSet(&logFile, &logLevel)
	printUsage := func(w io.Writer) { fmt.Fprint(w, usage) }
	if code := parseFlags(fs, args, printUsage, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() > 0 && fs.Arg(0) == "serve" { // flags before the subcommand
		if code := parseFlags(fs, fs.Args()[1:], printUsage, stdout, stderr); code >= 0 {
			return code
		}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls serve: unexpected arguments %q\n", fs.Args())
		return 2
	}
	logger, closeLog, err := newLogger(logFile, logLevel, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return 2
	}
	defer closeLog()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if isTerminal(stdin) {
		fmt.Fprint(stderr, ttyHint)
	}
	logger.Info("agentls starting", "version", currentVersion(), "pid", os.Getpid())
	cleaned := cleanStaleViews(logger)
	code := lspserver.Serve(ctx, stdin, stdout, lspserver.Options{Version: currentVersion(), Logger: logger})
	logger.Info("agentls exiting", "code", code)
	<-cleaned
	return code
}

// cleanStaleViews removes, in the background, the proposal views (scratch
// copies for commands and checks) that agentls processes which crashed or
// were killed left behind; a live process's views are never touched. The
// channel closes when it is done.
func cleanStaleViews(logger *slog.Logger) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		base := scratch.DefaultBaseDir()
		n, err := scratch.CleanStale(base)
		if n > 0 || err != nil {
			logger.Info("stale proposal views removed", "dir", base, "removed", n, "err", err)
		}
	}()
	return done
}

// newLogger builds the slog logger for --log-file/--log-level.
//
// Without --log-level, stderr gets warnings and errors only and a log file
// gets info too. Editors treat a language server's stderr as its error
// stream (Neovim writes every stderr line to lsp.log as [ERROR], VS Code's
// output channel shows it), so routine lines ("agentls starting", "run
// started") there read as failures; whoever wants them passes
// --log-level info or a --log-file.
func newLogger(file, level string, stderr io.Writer) (*slog.Logger, func(), error) {
	if level == "" {
		level = "warn"
		if file != "" {
			level = "info"
		}
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, fmt.Errorf("bad --log-level %q: want debug, info, warn or error", level)
	}
	out, closeFn := stderr, func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("open --log-file: %w", err)
		}
		out, closeFn = f, func() { _ = f.Close() }
	}
	// Every record is redacted (keys, credentials in URLs), whoever logs it.
	return slog.New(redact.Handler(slog.NewTextHandler(out, &slog.HandlerOptions{Level: lvl}))), closeFn, nil
}

// currentVersion is the ldflags version, else the module version recorded
// by `go install module@version`, else a development marker.
func currentVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.0.0-dev"
}
