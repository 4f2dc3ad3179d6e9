package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

const mcpUsage = `usage: agentls mcp [flags] list
       agentls mcp [flags] call SERVER TOOL [JSON]
       agentls mcp [flags] login SERVER
       agentls mcp logout SERVER

list   connects to every configured MCP server and prints its state and
       tools (the names the model sees, with their descriptions); --json
       prints them as JSON with each tool's own name and input schema.
       It never asks anyone to sign in.
call   calls one tool (by the server's name for it, or mcp__SERVER__TOOL)
       with JSON arguments (default {}) and prints the result text. On a
       terminal, a server that asks you to sign in (or, for a tool that
       needs more access, to sign in again with more scopes) gets the
       address printed, opened in your browser too with --browser, and the
       call waits for you (up to 5 minutes); off a terminal it fails with
       the hint to log in. Servers with a grant that needs no one
       (oauth.grant client_credentials or cross_app_access) get their
       token by themselves, also for more scopes.
login  signs in to a remote server that asks for OAuth authorization:
       prints the authorization address (and opens it when a desktop is
       present) and keeps the tokens, owner-only, under the state
       directory ($XDG_STATE_HOME/agentls/mcp-auth).
logout forgets a server's tokens.

Servers come from "mcpServers" in the user config file and in
DIR/.agentls/config.json; DIR is also advertised to servers as the root.
Servers from DIR/.agentls/config.json start only once you trust that file
(asked on a terminal; otherwise pass --trust-workspace).

Exit status: 0 success; 1 a server failed (list), or the call failed or
the tool reported an error (call); 2 bad usage or configuration.

flags:
`

// mcpFlags are the parsed arguments of `agentls mcp`.
type mcpFlags struct {
	dir     string
	timeout time.Duration
	verbose bool
	trust   bool     // --trust-workspace
	browser bool     // --browser: open sign-in pages (call)
	json    bool     // --json (list)
	args    []string // subcommand and its arguments
}

// mcpSubcommands are the words `agentls mcp` takes (for completion).
var mcpSubcommands = []string{"list", "call", "login", "logout"}

// mcpFlagSet is mcp's flags, shared by parsing, help and completion.
func mcpFlagSet(f *mcpFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("agentls mcp", flag.ContinueOnError)
	fs.StringVar(&f.dir, "dir", ".", "workspace `directory` (config and MCP root)")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "how long to wait for servers to connect (call on a terminal: at least the 5 minutes a sign-in may take; Ctrl-C stops)")
	fs.BoolVar(&f.verbose, "verbose", false, "log connection details (and servers' stderr) to stderr (also -v)")
	fs.BoolVar(&f.verbose, "v", false, "same as --verbose")
	fs.BoolVar(&f.trust, "trust-workspace", false, trustWorkspaceUsage)
	fs.BoolVar(&f.browser, "browser", false, "call: open a sign-in page in your browser when a server asks (when a desktop is present); it is always printed")
	fs.BoolVar(&f.json, "json", false, "list: print servers and tools as JSON")
	return fs
}

// parseMCPFlags accepts flags before and after the subcommand. It returns
// an exit code >= 0 when the command should stop.
func parseMCPFlags(args []string, stdout, stderr io.Writer) (mcpFlags, int) {
	var f mcpFlags
	fs := mcpFlagSet(&f)
	usage := func(w io.Writer) { fmt.Fprint(w, mcpUsage); printFlags(w, fs) }
	words, code := parseInterleaved(fs, args, usage, stdout, stderr)
	if code >= 0 {
		return f, code
	}
	f.args = words
	if len(f.args) == 0 {
		fmt.Fprintln(stderr, "agentls mcp: missing subcommand: list, call, login or logout (see agentls help mcp)")
		return f, 2
	}
	return f, -1
}

// mcpMain implements `agentls mcp`.
func mcpMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, code := parseMCPFlags(args, stdout, stderr)
	if code >= 0 {
		return code
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(redact.Handler(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
	dir, cfg, err, ok := loadWorkspace("mcp", f.dir, f.trust, stdin, stderr)
	if !ok {
		return 2
	}
	if err != nil {
		// The Config stays usable: broken sources and entries are skipped.
		fmt.Fprintf(stderr, "agentls mcp: %v\n", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch sub := f.args[0]; sub {
	case "list":
		if len(f.args) != 1 {
			fmt.Fprintf(stderr, "agentls mcp list: unexpected arguments %q\n", f.args[1:])
			return 2
		}
		if f.json {
			return mcpListJSON(ctx, cfg.MCPServers, dir, f.timeout, logger, stdout)
		}
		return mcpList(ctx, cfg.MCPServers, dir, f.timeout, logger, stdout, stderr)
	case "call":
		if len(f.args) < 3 || len(f.args) > 4 {
			fmt.Fprintln(stderr, "usage: agentls mcp call SERVER TOOL [JSON]")
			return 2
		}
		argJSON := "{}"
		if len(f.args) == 4 {
			argJSON = f.args[3]
		}
		return mcpCall(ctx, cfg.MCPServers, dir, f, logger, argJSON, stdin, stdout, stderr)
	case "login", "logout":
		if len(f.args) != 2 {
			fmt.Fprintf(stderr, "usage: agentls mcp %s SERVER\n", sub)
			return 2
		}
		if sub == "logout" {
			return mcpLogout(f.args[1], stdout, stderr)
		}
		return mcpLogin(ctx, cfg.MCPServers, dir, logger, f.args[1], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "agentls mcp: unknown subcommand %q (want list, call, login or logout)\n", sub)
		return 2
	}
}

// mcpStartServers connects servers and waits until each is ready or failed.
// The zero oauth has no browser step (a server that needs the user fails
// with the hint to log in); a sign-in it does start has until wait.
func mcpStartServers(ctx context.Context, servers map[string]mcp.ServerConfig, dir string, timeout time.Duration, logger *slog.Logger,
	elicit func(context.Context, mcp.Elicitation) (mcp.ElicitResult, error), oauth mcp.OAuthOptions) *mcp.Manager {
	if oauth.Store == nil {
		oauth.Store = mcp.NewTokenStore(mcp.DefaultTokenDir(nil))
	}
	wait := timeout
	callTimeout := time.Duration(0) // the default
	if oauth.Open != nil {
		// The user signs in meanwhile: connecting and calls wait for them.
		wait, callTimeout = max(timeout, loginTimeout), loginTimeout+time.Minute
	}
	m := mcp.NewManager(mcp.Options{
		Servers: servers, Roots: []string{dir}, Registry: tools.NewRegistry(), Logger: logger,
		ConnectTimeout: wait, CallTimeout: callTimeout, ReconnectAttempts: 1, ClientVersion: currentVersion(), Elicit: elicit,
		OAuth: oauth,
	})
	m.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, wait+time.Second)
	defer cancel()
	_ = m.WaitReady(wctx) // servers still connecting are reported as such
	return m
}

func mcpList(ctx context.Context, servers map[string]mcp.ServerConfig, dir string, timeout time.Duration, logger *slog.Logger, stdout, stderr io.Writer) int {
	if len(servers) == 0 {
		fmt.Fprintf(stdout, "no MCP servers configured: add \"mcpServers\" to %s or %s\n",
			mcpOrDefault(config.UserFilePath(nil), "the user config file"), config.WorkspaceFile(dir))
		return 0
	}
	m := mcpStartServers(ctx, servers, dir, timeout, logger, nil, mcp.OAuthOptions{})
	defer m.Close()
	code := 0
	for _, st := range m.Status() {
		switch st.State {
		case mcp.StateReady:
			fmt.Fprintf(stdout, "%s: ready (%d tools)\n", st.Name, len(st.Tools))
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			for _, name := range st.Tools {
				desc := ""
				if t, ok := m.Registry().Get(name); ok {
					desc = text.Clip(text.FirstLine(t.Description()), 100)
				}
				fmt.Fprintf(tw, "  %s\t%s\n", name, desc)
			}
			_ = tw.Flush()
		case mcp.StateDisabled:
			fmt.Fprintf(stdout, "%s: disabled\n", st.Name)
		default:
			code = 1
			fmt.Fprintf(stdout, "%s: %s: %s\n", st.Name, st.State, redact.Text(st.Err))
		}
	}
	return code
}

func mcpCall(ctx context.Context, servers map[string]mcp.ServerConfig, dir string, f mcpFlags, logger *slog.Logger, argJSON string, stdin io.Reader, stdout, stderr io.Writer) int {
	server, tool := f.args[1], f.args[2]
	cfg, ok := servers[server]
	if !ok {
		names := make([]string, 0, len(servers))
		for n := range servers {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "agentls mcp call: no server %q configured (configured: %s)\n", server, mcpOrDefault(strings.Join(names, ", "), "none"))
		return 2
	}
	if cfg.Disabled {
		fmt.Fprintf(stderr, "agentls mcp call: server %q is disabled in the configuration\n", server)
		return 1
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(argJSON), &obj); err != nil {
		fmt.Fprintf(stderr, "agentls mcp call: arguments must be a JSON object: %v\n", err)
		return 2
	}
	// A tool may ask the user (elicitation, signing in): on a terminal,
	// they answer.
	var oauth mcp.OAuthOptions
	if isTerminal(stdin) {
		oauth = cliOAuth(stderr, f.browser)
		oauth.Timeout = loginTimeout
	}
	m := mcpStartServers(ctx, map[string]mcp.ServerConfig{server: cfg}, dir, f.timeout, logger, cliElicit(stdin, stderr), oauth)
	defer m.Close()
	if st := m.Status()[0]; st.State != mcp.StateReady {
		fmt.Fprintf(stderr, "agentls mcp call: server %q is %s: %s\n", server, st.State, redact.Text(st.Err))
		return 1
	}
	t, ok := m.Tool(server, tool)
	if !ok {
		fmt.Fprintf(stderr, "agentls mcp call: server %q has no tool %q (tools: %s)\n", server, tool, strings.Join(m.Status()[0].Tools, ", "))
		return 1
	}
	res, err := t.Call(ctx, nil, json.RawMessage(argJSON))
	if err != nil {
		fmt.Fprintf(stderr, "agentls mcp call: %v\n", err)
		return 1
	}
	if res.IsError {
		fmt.Fprintf(stderr, "%s\n", res.Text)
		return 1
	}
	fmt.Fprintln(stdout, res.Text)
	return 0
}

func mcpOrDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// mcpListJSON is "agentls mcp list --json": every configured server with its
// state, error and tools (the model's name, the server's own name, the
// description and the input schema as the model gets it). The exit status
// is list's.
func mcpListJSON(ctx context.Context, servers map[string]mcp.ServerConfig, dir string, timeout time.Duration, logger *slog.Logger, stdout io.Writer) int {
	type jsonTool struct {
		Name        string          `json:"name"`
		Tool        string          `json:"tool"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	type jsonServer struct {
		Name  string     `json:"name"`
		State string     `json:"state"`
		Error string     `json:"error,omitempty"`
		Tools []jsonTool `json:"tools"`
	}
	out := struct {
		Servers []jsonServer `json:"servers"`
	}{Servers: []jsonServer{}}
	code := 0
	if len(servers) > 0 {
		m := mcpStartServers(ctx, servers, dir, timeout, logger, nil, mcp.OAuthOptions{})
		defer m.Close()
		for _, st := range m.Status() {
			js := jsonServer{Name: st.Name, State: string(st.State), Error: redact.Text(st.Err), Tools: []jsonTool{}}
			if st.State != mcp.StateReady && st.State != mcp.StateDisabled {
				code = 1
			}
			for _, name := range st.Tools {
				t, ok := m.Registry().Get(name)
				if !ok {
					continue
				}
				remote, _ := mcp.RemoteName(t)
				js.Tools = append(js.Tools, jsonTool{Name: name, Tool: remote, Description: t.Description(), InputSchema: t.Schema()})
			}
			out.Servers = append(out.Servers, js)
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	return code
}
