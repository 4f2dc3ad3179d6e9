package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/tools/mcp/mcptest"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// authServer is a local OAuth 2.1 authorization server and a protected MCP
// server (the mcptest server behind a bearer check).
type authServer struct {
	t                   *testing.T
	as, rs              *httptest.Server
	mu                  sync.Mutex
	valid               map[string]bool // access tokens the resource accepts
	issued              int
	auths               []string // authorization requests' raw queries
	tokenReq            []string // token requests' forms
	challenge, resource string
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, valid: map[string]bool{}}
	asMux := http.NewServeMux()
	a.as = httptest.NewServer(asMux)
	t.Cleanup(a.as.Close)
	asMux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": a.as.URL, "authorization_endpoint": a.as.URL + "/authorize", "token_endpoint": a.as.URL + "/token",
			"registration_endpoint": a.as.URL + "/register", "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	asMux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": "dyn-client", "token_endpoint_auth_method": "none"})
	})
	asMux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		a.auths = append(a.auths, r.URL.RawQuery)
		a.challenge = q.Get("code_challenge")
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=the-code&state="+q.Get("state"), http.StatusFound)
	})
	asMux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		a.tokenReq = append(a.tokenReq, r.Form.Encode())
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if r.Form.Get("code") != "the-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != a.challenge {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
		case "refresh_token":
			if r.Form.Get("refresh_token") != "refresh-secret" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
		}
		a.issued++
		tok := fmt.Sprintf("access-secret-%d", a.issued)
		a.valid[tok] = true
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "refresh_token": "refresh-secret", "expires_in": 3600, "scope": "mcp:read"})
	})

	h := mcpserver.NewStreamableHTTPServer(mcptest.NewServer(mcptest.Options{}))
	rsMux := http.NewServeMux()
	a.rs = httptest.NewServer(rsMux)
	t.Cleanup(a.rs.Close)
	a.resource = a.rs.URL + "/mcp"
	rsMux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": a.resource, "authorization_servers": []string{a.as.URL}})
	})
	rsMux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.valid[tok]
		a.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`, a.rs.URL))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
	return a
}

// revokeAll makes the resource refuse every token issued so far.
func (a *authServer) revokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.valid)
}

// TestOAuthAgainstLocalServer: a protected server's 401 leads through
// protected resource and authorization server discovery, dynamic
// registration, the browser step (PKCE S256, state, resource, the scope
// from WWW-Authenticate, redirect to the loopback listener) and the token
// exchange to a working connection; the token is stored owner-only and never
// logged; a revoked token is refreshed without the user.
func TestOAuthAgainstLocalServer(t *testing.T) {
	a := newAuthServer(t)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	var logs bytes.Buffer
	var opens atomic.Int32
	open := func(ctx context.Context, server, authURL string) error {
		opens.Add(1)
		if server != "secure" || !strings.HasPrefix(authURL, a.as.URL+"/authorize?") {
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
		Servers: map[string]ServerConfig{"secure": {Type: "http", URL: a.resource}},
		OAuth:   OAuthOptions{Store: &FileTokenStore{Dir: dir}, Open: open},
	})
	waitState(t, m, "secure", StateReady)
	if res := call(t, m.Registry(), "mcp__secure__echo", `{"text":"hi"}`); res.Text != "helper: hi" {
		t.Fatalf("echo: %+v", res)
	}
	a.mu.Lock()
	auth := a.auths[0]
	a.mu.Unlock()
	for _, want := range []string{"response_type=code", "client_id=dyn-client", "code_challenge_method=S256", "scope=mcp%3Aread",
		"resource=" + strings.ReplaceAll(strings.ReplaceAll(a.resource, ":", "%3A"), "/", "%2F"), "redirect_uri=http%3A%2F%2F127.0.0.1%3A"} {
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
	a.revokeAll()
	if res := call(t, m.Registry(), "mcp__secure__echo", `{"text":"again"}`); res.Text != "helper: again" {
		t.Fatalf("echo after revocation: %+v", res)
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("the user was sent to the browser %d times, want 1", n)
	}
	a.mu.Lock()
	last := a.tokenReq[len(a.tokenReq)-1]
	a.mu.Unlock()
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
	a := newAuthServer(t)
	m := startManager(t, Options{Servers: map[string]ServerConfig{"secure": {Type: "http", URL: a.resource}}, ReconnectAttempts: 1})
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
