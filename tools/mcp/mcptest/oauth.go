package mcptest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// AuthServer is a local OAuth 2.1 authorization server (metadata,
// dynamic registration, an authorization endpoint that approves at once and
// redirects, a token endpoint checking PKCE, refresh) and an MCP server
// (NewServer) protected by it: requests without a valid bearer token get
// 401 with resource_metadata and scope "mcp:read" in WWW-Authenticate.
type AuthServer struct {
	// ResourceURL is the protected MCP server's URL; AuthURL the
	// authorization server's issuer.
	ResourceURL, AuthURL string

	as, rs    *httptest.Server
	mu        sync.Mutex
	valid     map[string]bool // access tokens the resource accepts
	issued    int
	auths     []string // authorization requests' raw queries
	tokenReq  []string // token requests' forms
	challenge string
	authzEP   string // authorization_endpoint in the metadata ("" : the real one)
}

// SetAuthorizationEndpoint makes the metadata name endpoint as the
// authorization_endpoint, as a hostile authorization server would
// (vscode://…, file://…, javascript:…, --help).
func (a *AuthServer) SetAuthorizationEndpoint(endpoint string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.authzEP = endpoint
}

// StartOAuth starts both servers until the test ends.
func StartOAuth(t testing.TB) *AuthServer {
	a := &AuthServer{valid: map[string]bool{}}
	asMux := http.NewServeMux()
	a.as = httptest.NewServer(asMux)
	t.Cleanup(a.as.Close)
	a.AuthURL = a.as.URL
	asMux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		authz := a.authzEP
		a.mu.Unlock()
		if authz == "" {
			authz = a.as.URL + "/authorize"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": a.as.URL, "authorization_endpoint": authz, "token_endpoint": a.as.URL + "/token",
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

	h := server.NewStreamableHTTPServer(NewServer(Options{}))
	rsMux := http.NewServeMux()
	a.rs = httptest.NewServer(rsMux)
	t.Cleanup(a.rs.Close)
	a.ResourceURL = a.rs.URL + "/mcp"
	rsMux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": a.ResourceURL, "authorization_servers": []string{a.as.URL}})
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

// RevokeAll makes the resource refuse every token issued so far.
func (a *AuthServer) RevokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.valid)
}

// Authorizations are the raw queries of the authorization requests so far.
func (a *AuthServer) Authorizations() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.auths...)
}

// TokenRequests are the token requests' forms so far.
func (a *AuthServer) TokenRequests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.tokenReq...)
}
