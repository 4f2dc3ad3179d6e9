package mcp

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// TestOAuthAgainstLocalServer: a protected server's 401 leads through
// protected resource and authorization server discovery, dynamic
// registration, the browser step (PKCE S256, state, resource, the scope
// from WWW-Authenticate, redirect to the loopback listener) and the token
// exchange to a working connection; the token is stored owner-only and never
// logged; a revoked token is refreshed without the user.
func TestOAuthAgainstLocalServer(t *testing.T) {
	a := mcptest.StartOAuth(t)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	var logs bytes.Buffer
	var opens atomic.Int32
	open := func(ctx context.Context, server, authURL string) error {
		opens.Add(1)
		if server != "secure" || !strings.HasPrefix(authURL, a.AuthURL+"/authorize?") {
			t.Errorf("open(%q, %q)", server, authURL)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		resp, err := http.DefaultClient.Do(req) // the browser: follows the redirect to the loopback listener
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	m := startManager(t, Options{
		Logger:  slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Servers: map[string]ServerConfig{"secure": {Type: "http", URL: a.ResourceURL}},
		OAuth:   OAuthOptions{Store: &FileTokenStore{Dir: dir}, Open: open},
	})
	waitState(t, m, "secure", StateReady)
	if res := call(t, m.Registry(), "mcp__secure__echo", `{"text":"hi"}`); res.Text != "helper: hi" {
		t.Fatalf("echo: %+v", res)
	}
	auth := a.Authorizations()[0]
	for _, want := range []string{"response_type=code", "client_id=dyn-client", "code_challenge_method=S256", "scope=mcp%3Aread",
		"resource=" + strings.ReplaceAll(strings.ReplaceAll(a.ResourceURL, ":", "%3A"), "/", "%2F"), "redirect_uri=http%3A%2F%2F127.0.0.1%3A"} {
		if !strings.Contains(auth, want) {
			t.Errorf("authorization request %q lacks %q", auth, want)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "secure.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("token dir mode %v", di.Mode().Perm())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "secure.json")); !bytes.Contains(b, []byte("access-secret-1")) {
		t.Errorf("token file %s", b)
	}

	// The token stops working: the next call refreshes it, unseen.
	a.RevokeAll()
	if res := call(t, m.Registry(), "mcp__secure__echo", `{"text":"again"}`); res.Text != "helper: again" {
		t.Fatalf("echo after revocation: %+v", res)
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("the user was sent to the browser %d times, want 1", n)
	}
	reqs := a.TokenRequests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last, "grant_type=refresh_token") || !strings.Contains(last, "resource=") {
		t.Errorf("last token request %q", last)
	}
	if strings.Contains(logs.String(), "access-secret") || strings.Contains(logs.String(), "refresh-secret") {
		t.Errorf("a token reached the log:\n%s", logs.String())
	}
}

// TestOAuthWithoutBrowser: with no way to send the user to the browser, a
// protected server fails with a message saying to log in.
func TestOAuthWithoutBrowser(t *testing.T) {
	a := mcptest.StartOAuth(t)
	m := startManager(t, Options{Servers: map[string]ServerConfig{"secure": {Type: "http", URL: a.ResourceURL}}, ReconnectAttempts: 1})
	st := waitState(t, m, "secure", StateFailed)
	if !strings.Contains(st.Err, "agentls mcp login") {
		t.Errorf("error %q", st.Err)
	}
}

// TestLoopbackChecksState: the redirect listener ignores a request with the
// wrong state and takes exactly one good one.
func TestLoopbackChecksState(t *testing.T) {
	lb, err := listenLoopback("good")
	if err != nil {
		t.Fatal(err)
	}
	defer lb.close()
	if !strings.HasPrefix(lb.redirectURI, "http://127.0.0.1:") {
		t.Fatalf("redirect URI %q", lb.redirectURI)
	}
	resp, err := http.Get(lb.redirectURI + "?code=evil&state=bad")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("wrong state answered %d", resp.StatusCode)
	}
	resp, err = http.Get(lb.redirectURI + "?code=c&state=good")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	code, err := lb.wait(context.Background())
	if err != nil || code != "c" {
		t.Errorf("code %q, %v", code, err)
	}
}

func TestAuthParams(t *testing.T) {
	got := authParams(`Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/y", realm=r`)
	if got["error"] != "insufficient_scope" || got["scope"] != "a b" || got["resource_metadata"] != "https://x/y" || got["realm"] != "r" {
		t.Errorf("%v", got)
	}
}

func TestResourceCovers(t *testing.T) {
	for _, c := range []struct {
		res, srv string
		want     bool
	}{
		{"https://a.example/mcp", "https://a.example/mcp", true},
		{"https://a.example/", "https://a.example/mcp", true},
		{"https://A.example", "https://a.example/mcp", true},
		{"https://a.example/mcp", "https://a.example/mcpx", false},
		{"https://b.example/mcp", "https://a.example/mcp", false},
		{"http://a.example/mcp", "https://a.example/mcp", false},
	} {
		if got := resourceCovers(c.res, c.srv); got != c.want {
			t.Errorf("resourceCovers(%q, %q) = %v", c.res, c.srv, got)
		}
	}
}

// TestOAuthLeavesOwnHeaderAlone: a server configured with its own
// Authorization header is never sent through the OAuth flow.
func TestOAuthLeavesOwnHeaderAlone(t *testing.T) {
	a := mcptest.StartOAuth(t)
	var opens atomic.Int32
	m := startManager(t, Options{ReconnectAttempts: 1,
		Servers: map[string]ServerConfig{"secure": {Type: "http", URL: a.ResourceURL, Headers: map[string]string{"Authorization": "Bearer mine"}}},
		OAuth:   OAuthOptions{Open: func(context.Context, string, string) error { opens.Add(1); return nil }}})
	st := waitState(t, m, "secure", StateFailed)
	if opens.Load() != 0 || len(a.Authorizations()) != 0 || strings.Contains(st.Err, "log in") {
		t.Errorf("OAuth ran: opens %d, err %q", opens.Load(), st.Err)
	}
}

// N4: an authorization server's authorization_endpoint of any scheme but
// https (or http on this machine) is refused before anything could open
// it: the server fails with an error saying why, and Open is never called.
func TestOAuthRefusesUnsafeAuthorizationEndpoint(t *testing.T) {
	for _, ep := range []string{"vscode://vscode.git/clone?url=https%3A%2F%2Fevil.example", "file:///etc/passwd", "javascript:alert(document.cookie)", "--help", "http://evil.example/authorize"} {
		t.Run(ep, func(t *testing.T) {
			a := mcptest.StartOAuth(t)
			a.SetAuthorizationEndpoint(ep)
			var opens atomic.Int32
			m := startManager(t, Options{
				Servers:           map[string]ServerConfig{"secure": {Type: "http", URL: a.ResourceURL}},
				ReconnectAttempts: 1,
				OAuth: OAuthOptions{Store: &FileTokenStore{Dir: t.TempDir()}, Open: func(context.Context, string, string) error {
					opens.Add(1)
					return nil
				}},
			})
			st := waitState(t, m, "secure", StateFailed)
			if !strings.Contains(st.Err, "authorization_endpoint was refused") || !strings.Contains(st.Err, "only https") {
				t.Errorf("error %q", st.Err)
			}
			if n := opens.Load(); n != 0 {
				t.Errorf("Open was called %d times", n)
			}
		})
	}
}
