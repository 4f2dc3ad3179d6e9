package mcptest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// GrantServer is a local OAuth authorization server that knows every grant
// agentls uses (authorization code with PKCE, refresh, client credentials,
// JWT bearer), an enterprise identity provider doing RFC 8693 token
// exchange for ID-JAGs, and an MCP server (NewServer) protected by them.
// Requests without a valid token get 401 with scope "mcp:read";
// tools/call needs RequireForCall's scopes too and gets 403
// insufficient_scope naming them when the token lacks them (step-up).
//
// Every token request is recorded; Answer, when set, answers it instead
// (to script bad answers); Grant decides the scopes granted.
type GrantServer struct {
	// ResourceURL is the MCP server's URL, AuthURL the authorization
	// server's issuer, IdPURL the identity provider's issuer.
	ResourceURL, AuthURL, IdPURL string

	as, rs, idp *httptest.Server

	mu        sync.Mutex
	metadata  map[string]any // authorization server metadata overrides
	valid     map[string][]string
	issued    int
	requests  []TokenRequest
	answer    func(w http.ResponseWriter, r TokenRequest) bool
	grant     func(requested []string) []string
	call      []string
	challenge string
	idpReqs   []TokenRequest
	idpAnswer func(w http.ResponseWriter, r TokenRequest) bool
	seen      []string // bearer tokens the resource received
}

// TokenRequest is one request to a token endpoint.
type TokenRequest struct {
	Form url.Values
	// BasicUser and BasicPass are the decoded HTTP Basic credentials
	// ("" when absent), already form-unescaped.
	BasicUser, BasicPass string
	HasBasic             bool
}

// StartGrants starts the servers until the test ends.
func StartGrants(t testing.TB) *GrantServer {
	g := &GrantServer{valid: map[string][]string{}, metadata: map[string]any{}}
	asMux := http.NewServeMux()
	g.as = httptest.NewServer(asMux)
	t.Cleanup(g.as.Close)
	g.AuthURL = g.as.URL
	asMux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		md := map[string]any{
			"issuer": g.as.URL, "authorization_endpoint": g.as.URL + "/authorize", "token_endpoint": g.as.URL + "/token",
			"code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported": []string{"authorization_code", "refresh_token", "client_credentials",
				"urn:ietf:params:oauth:grant-type:jwt-bearer"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "private_key_jwt", "none"},
		}
		g.mu.Lock()
		for k, v := range g.metadata {
			md[k] = v
		}
		g.mu.Unlock()
		_ = json.NewEncoder(w).Encode(md)
	})
	asMux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		g.mu.Lock()
		g.challenge = q.Get("code_challenge") + " " + q.Get("scope")
		g.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=the-code&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	asMux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		tr := readTokenRequest(r)
		g.mu.Lock()
		g.requests = append(g.requests, tr)
		answer := g.answer
		g.mu.Unlock()
		if answer != nil && answer(w, tr) {
			return
		}
		var scope string
		switch tr.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(tr.Form.Get("code_verifier")))
			g.mu.Lock()
			challenge, asked, _ := strings.Cut(g.challenge, " ")
			g.mu.Unlock()
			if tr.Form.Get("code") != "the-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
				writeError(w, http.StatusBadRequest, "invalid_grant")
				return
			}
			scope = asked
		case "refresh_token":
			writeError(w, http.StatusBadRequest, "invalid_grant")
			return
		case "client_credentials":
			scope = tr.Form.Get("scope")
		case "urn:ietf:params:oauth:grant-type:jwt-bearer":
			if !strings.HasPrefix(tr.Form.Get("assertion"), "id-jag.") {
				writeError(w, http.StatusBadRequest, "invalid_grant")
				return
			}
			scope = tr.Form.Get("scope")
		default:
			writeError(w, http.StatusBadRequest, "unsupported_grant_type")
			return
		}
		granted := strings.Fields(scope)
		g.mu.Lock()
		if g.grant != nil {
			granted = g.grant(granted)
		}
		g.issued++
		tok := fmt.Sprintf("granted-token-%d", g.issued)
		g.valid[tok] = granted
		g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "scope": strings.Join(granted, " ")})
	})

	idpMux := http.NewServeMux()
	g.idp = httptest.NewServer(idpMux)
	t.Cleanup(g.idp.Close)
	g.IdPURL = g.idp.URL
	idpMux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": g.idp.URL, "authorization_endpoint": g.idp.URL + "/authorize",
			"token_endpoint": g.idp.URL + "/token", "grant_types_supported": []string{"urn:ietf:params:oauth:grant-type:token-exchange"}})
	})
	idpMux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		tr := readTokenRequest(r)
		g.mu.Lock()
		g.idpReqs = append(g.idpReqs, tr)
		answer := g.idpAnswer
		g.mu.Unlock()
		if answer != nil && answer(w, tr) {
			return
		}
		f := tr.Form
		if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" ||
			f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" ||
			f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" || f.Get("subject_token") != "the-id-token" ||
			f.Get("audience") != g.as.URL || f.Get("resource") != g.ResourceURL {
			writeError(w, http.StatusBadRequest, "invalid_request")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "id-jag." + f.Get("resource"),
			"issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A", "expires_in": 300})
	})

	h := server.NewStreamableHTTPServer(NewServer(Options{}))
	rsMux := http.NewServeMux()
	g.rs = httptest.NewServer(rsMux)
	t.Cleanup(g.rs.Close)
	g.ResourceURL = g.rs.URL + "/mcp"
	rsMux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": g.ResourceURL, "authorization_servers": []string{g.as.URL}})
	})
	rsMux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		g.mu.Lock()
		if tok != "" {
			g.seen = append(g.seen, tok)
		}
		scopes, ok := g.valid[tok]
		need := []string{"mcp:read"}
		if msg.Method == "tools/call" {
			need = append(need, g.call...)
		}
		g.mu.Unlock()
		meta := g.rs.URL + "/.well-known/oauth-protected-resource/mcp"
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s", scope="mcp:read"`, meta))
			writeError(w, http.StatusUnauthorized, "invalid_token")
			return
		}
		for _, s := range need {
			if !slices.Contains(scopes, s) {
				// Only the extra scopes are named: the client must keep
				// what it has (the union) itself.
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s", resource_metadata="%s"`, strings.Join(need[1:], " "), meta))
				writeError(w, http.StatusForbidden, "insufficient_scope")
				return
			}
		}
		h.ServeHTTP(w, r)
	})
	return g
}

func readTokenRequest(r *http.Request) TokenRequest {
	_ = r.ParseForm()
	tr := TokenRequest{Form: r.PostForm}
	if u, p, ok := r.BasicAuth(); ok {
		tr.HasBasic = true
		tr.BasicUser, _ = url.QueryUnescape(u)
		tr.BasicPass, _ = url.QueryUnescape(p)
	}
	return tr
}

func writeError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": "the test server says " + code})
}

// SetMetadata overrides authorization server metadata fields.
func (g *GrantServer) SetMetadata(key string, v any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.metadata[key] = v
}

// RequireForCall makes tools/call need these scopes besides mcp:read.
func (g *GrantServer) RequireForCall(scopes ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.call = scopes
}

// GrantScopes makes the authorization server grant f(requested) instead
// of what was asked.
func (g *GrantServer) GrantScopes(f func(requested []string) []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.grant = f
}

// Answer scripts the authorization server's token endpoint: f answers a
// request and returns true, or returns false to let the server answer.
func (g *GrantServer) Answer(f func(w http.ResponseWriter, r TokenRequest) bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.answer = f
}

// AnswerIdP scripts the identity provider's token endpoint like Answer.
func (g *GrantServer) AnswerIdP(f func(w http.ResponseWriter, r TokenRequest) bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.idpAnswer = f
}

// RevokeAll makes the resource refuse every token issued so far.
func (g *GrantServer) RevokeAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.valid)
}

// TokenRequests are the authorization server's token requests so far.
func (g *GrantServer) TokenRequests() []TokenRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
}

// IdPRequests are the identity provider's token requests so far.
func (g *GrantServer) IdPRequests() []TokenRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.idpReqs)
}

// SeenTokens are the bearer tokens the MCP server received, in order.
func (g *GrantServer) SeenTokens() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.seen)
}
