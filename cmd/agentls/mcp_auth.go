package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/agentls/agentls/internal/safetext"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// loginTimeout bounds `agentls mcp login`: the user signs in meanwhile.
const loginTimeout = 5 * time.Minute

// cliOAuth is how the CLI authorizes MCP servers that need the user: it
// prints the authorization address on stderr (naming the scopes asked for,
// so a second sign-in for more access reads as such) and, when browser is
// set (agentls mcp login, or mcp call --browser: the user asked), opens it
// in a browser if a desktop is present. The redirect comes back to a
// loopback listener, so the call waits for the user (OAuthOptions.Timeout).
// Only https (or loopback http) addresses are printed or opened
// (mcp.CheckBrowserURL), so an authorization server cannot hand the
// opener vscode://, file://, javascript: or an option such as --help.
// Tokens are kept in mcp.DefaultTokenDir.
func cliOAuth(stderr io.Writer, browser bool) mcp.OAuthOptions {
	return mcp.OAuthOptions{
		Store: mcp.NewTokenStore(mcp.DefaultTokenDir(nil)),
		Open: func(ctx context.Context, server, authURL string) error {
			if err := mcp.CheckBrowserURL(authURL); err != nil {
				return err
			}
			access := ""
			if u, err := url.Parse(authURL); err == nil && u.Query().Get("scope") != "" {
				access = fmt.Sprintf(" for access to %q", safetext.Bound(safetext.Line(u.Query().Get("scope")), 200))
			}
			fmt.Fprintf(stderr, "agentls: MCP server %s asks you to sign in%s. Open this address in a browser:\n  %s\n",
				safetext.Line(strconv.Quote(server)), access, authURL)
			if browser {
				openBrowser(ctx, authURL)
			}
			return nil
		},
	}
}

// openBrowser starts the desktop's URL opener, if there is a desktop. u
// has passed mcp.CheckBrowserURL, so it starts with http(s):// and cannot
// be taken for an option (xdg-open refuses "--" itself: "unexpected
// option", xdg-utils 1.1.3). The opener is not bound to ctx: the flow's
// context ends as soon as the sign-in completes, which can be before
// xdg-open has handed the address to the browser, and killing it then
// would lose the page (seen as a flaky test under load).
func openBrowser(_ context.Context, u string) {
	if mcp.CheckBrowserURL(u) != nil {
		return
	}
	var cmd *exec.Cmd
	switch {
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", u)
	case os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "":
		if _, err := exec.LookPath("xdg-open"); err != nil {
			return
		}
		cmd = exec.Command("xdg-open", u)
	default:
		return
	}
	if err := cmd.Start(); err == nil {
		go func() { _ = cmd.Wait() }()
	}
}

// mcpLogin authorizes one remote server (the full OAuth flow when the
// server asks for it) and keeps its tokens for later runs.
func mcpLogin(ctx context.Context, servers map[string]mcp.ServerConfig, dir string, logger *slog.Logger, server string, stdout, stderr io.Writer) int {
	cfg, ok := servers[server]
	if !ok {
		fmt.Fprintf(stderr, "agentls mcp login: no server %q configured\n", server)
		return 2
	}
	if cfg.URL == "" {
		fmt.Fprintf(stderr, "agentls mcp login: %q is not a remote (http or sse) server\n", server)
		return 2
	}
	oauth := cliOAuth(stderr, true)
	oauth.Timeout = loginTimeout
	// Asked for by the user, login always signs in (with the scopes wanted
	// so far), also when a token is stored.
	if err := mcp.ForgetAccessToken(oauth.Store, server); err != nil {
		fmt.Fprintf(stderr, "agentls mcp login: %v\n", err)
	}
	m := mcp.NewManager(mcp.Options{
		Servers: map[string]mcp.ServerConfig{server: cfg}, Roots: []string{dir}, Registry: tools.NewRegistry(), Logger: logger,
		ConnectTimeout: loginTimeout + 30*time.Second, ReconnectAttempts: 1, ClientVersion: currentVersion(), OAuth: oauth,
	})
	m.Start(ctx)
	defer m.Close()
	wctx, cancel := context.WithTimeout(ctx, loginTimeout+time.Minute)
	defer cancel()
	_ = m.WaitReady(wctx)
	st := m.Status()[0]
	if st.State != mcp.StateReady {
		fmt.Fprintf(stderr, "agentls mcp login: %s: %s %s\n", server, st.State, st.Err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: signed in; %d tools\n", server, len(st.Tools))
	return 0
}

// mcpLogout forgets a server's tokens and client registration.
func mcpLogout(server string, stdout, stderr io.Writer) int {
	dir := mcp.DefaultTokenDir(nil)
	if dir == "" {
		fmt.Fprintln(stderr, "agentls mcp logout: no state directory (set XDG_STATE_HOME or HOME)")
		return 2
	}
	if err := (&mcp.FileTokenStore{Dir: dir}).Delete(server); err != nil {
		fmt.Fprintf(stderr, "agentls mcp logout: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: signed out\n", server)
	return 0
}
