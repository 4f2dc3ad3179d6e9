package mcp

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// grantEnv is the environment the grant tests' configurations read.
func grantEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestClientCredentialsBasic: a server configured with the client
// credentials grant gets its token without anyone (no Open): the secret
// comes from the named variable and goes in HTTP Basic, the request names
// the resource and the scope from WWW-Authenticate, the token is stored
// owner-only without the secret, and neither reaches the log.
func TestClientCredentialsBasic(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.SetMetadata("token_endpoint_auth_methods_supported", []string{"client_secret_basic"})
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	var logs bytes.Buffer
	m := startManager(t, Options{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Env:    grantEnv(map[string]string{"CC_SECRET": "s3cr3t:with/odd&chars"}),
		Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
			Grant: GrantClientCredentials, ClientID: "ci-client", ClientSecretEnv: "CC_SECRET"}}},
		OAuth: OAuthOptions{Store: &FileTokenStore{Dir: dir}},
	})
	waitState(t, m, "svc", StateReady)
	if res := call(t, m.Registry(), "mcp__svc__echo", `{"text":"hi"}`); res.Text != "helper: hi" {
		t.Fatalf("echo: %+v", res)
	}
	reqs := g.TokenRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d token requests, want 1", len(reqs))
	}
	r := reqs[0]
	if !r.HasBasic || r.BasicUser != "ci-client" || r.BasicPass != "s3cr3t:with/odd&chars" {
		t.Errorf("Basic credentials %v %q %q", r.HasBasic, r.BasicUser, r.BasicPass)
	}
	if r.Form.Get("grant_type") != "client_credentials" || r.Form.Get("resource") != g.ResourceURL || r.Form.Get("scope") != "mcp:read" {
		t.Errorf("form %v", r.Form)
	}
	if r.Form.Has("client_secret") {
		t.Errorf("the secret was also sent in the form: %v", r.Form)
	}
	b, err := os.ReadFile(filepath.Join(dir, "svc.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("granted-token-1")) || !bytes.Contains(b, []byte(`"grant": "client_credentials"`)) || bytes.Contains(b, []byte("s3cr3t")) {
		t.Errorf("token file:\n%s", b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "svc.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	if strings.Contains(logs.String(), "s3cr3t") || strings.Contains(logs.String(), "granted-token") {
		t.Errorf("a secret reached the log:\n%s", logs.String())
	}

	// The token stops working: the grant just asks again, no one is asked.
	g.RevokeAll()
	if res := call(t, m.Registry(), "mcp__svc__echo", `{"text":"again"}`); res.Text != "helper: again" {
		t.Fatalf("echo after revocation: %+v", res)
	}
	if n := len(g.TokenRequests()); n != 2 {
		t.Errorf("%d token requests after revocation, want 2", n)
	}
}

// TestClientCredentialsPost: an authorization server that takes only
// client_secret_post gets the credentials in the form, not in a header.
func TestClientCredentialsPost(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.SetMetadata("token_endpoint_auth_methods_supported", []string{"client_secret_post"})
	m := startManager(t, Options{
		Env: grantEnv(map[string]string{"CC_SECRET": "post-secret"}),
		Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
			Grant: GrantClientCredentials, ClientID: "ci-client", ClientSecretEnv: "CC_SECRET"}}},
	})
	waitState(t, m, "svc", StateReady)
	r := g.TokenRequests()[0]
	if r.HasBasic || r.Form.Get("client_id") != "ci-client" || r.Form.Get("client_secret") != "post-secret" {
		t.Errorf("basic %v, form %v", r.HasBasic, r.Form)
	}
}

// writeKey writes a fresh P-256 key as PKCS#8 PEM with mode perm.
func writeKey(t *testing.T, perm os.FileMode) (string, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "client.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // past the umask
		t.Fatal(err)
	}
	return p, key
}

// TestClientCredentialsPrivateKeyJWT: with a private key the client
// authenticates with a signed assertion (RFC 7523): ES256, iss = sub =
// client id, aud = the issuer, a few minutes of validity and a fresh jti
// for every request; no secret is sent.
func TestClientCredentialsPrivateKeyJWT(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.SetMetadata("token_endpoint_auth_signing_alg_values_supported", []string{"ES256"})
	keyFile, key := writeKey(t, 0o600)
	m := startManager(t, Options{
		Env: grantEnv(map[string]string{"KEYDIR": filepath.Dir(keyFile)}),
		Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
			Grant: GrantClientCredentials, ClientID: "jwt-client", PrivateKeyFile: "${KEYDIR}/client.pem"}}},
	})
	waitState(t, m, "svc", StateReady)
	g.RevokeAll()
	if res := call(t, m.Registry(), "mcp__svc__echo", `{"text":"x"}`); res.Text != "helper: x" {
		t.Fatalf("echo: %+v", res)
	}
	reqs := g.TokenRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d token requests, want 2", len(reqs))
	}
	var jtis []string
	for _, r := range reqs {
		if r.HasBasic || r.Form.Has("client_secret") {
			t.Errorf("a secret was sent: %v", r.Form)
		}
		if r.Form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			t.Errorf("client_assertion_type %q", r.Form.Get("client_assertion_type"))
		}
		var claims jwt.RegisteredClaims
		tok, err := jwt.ParseWithClaims(r.Form.Get("client_assertion"), &claims, func(*jwt.Token) (any, error) { return &key.PublicKey, nil },
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(g.AuthURL), jwt.WithIssuer("jwt-client"), jwt.WithSubject("jwt-client"),
			jwt.WithExpirationRequired(), jwt.WithIssuedAt())
		if err != nil || !tok.Valid {
			t.Fatalf("assertion does not verify: %v", err)
		}
		if life := claims.ExpiresAt.Sub(claims.IssuedAt.Time); life <= 0 || life > 10*time.Minute {
			t.Errorf("assertion valid for %v", life)
		}
		jtis = append(jtis, claims.ID)
	}
	if jtis[0] == "" || jtis[0] == jtis[1] {
		t.Errorf("jti %q", jtis)
	}
}

// TestPrivateKeyFileRules: a key others can read, a file that is no key,
// and an algorithm the authorization server does not accept each fail the
// server with a sentence saying what to fix; nothing is sent.
func TestPrivateKeyFileRules(t *testing.T) {
	loose, _ := writeKey(t, 0o644)
	good, _ := writeKey(t, 0o600)
	junk := filepath.Join(t.TempDir(), "junk.pem")
	if err := os.WriteFile(junk, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file, alg, want string
	}{
		{"loose", loose, "", "can be read by others"},
		{"junk", junk, "", "holds no PEM block"},
		{"missing", filepath.Join(t.TempDir(), "none.pem"), "", "no such file"},
		{"alg", good, "", "accepts client assertions signed with RS256, not ES256"},
		{"bad alg", good, "HS256", "signing the client assertion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := mcptest.StartGrants(t)
			if c.name == "alg" {
				g.SetMetadata("token_endpoint_auth_signing_alg_values_supported", []string{"RS256"})
			}
			m := startManager(t, Options{ReconnectAttempts: 1,
				Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
					Grant: GrantClientCredentials, ClientID: "jwt-client", PrivateKeyFile: c.file, SigningAlgorithm: c.alg}}},
			})
			st := waitState(t, m, "svc", StateFailed)
			if !strings.Contains(st.Err, c.want) {
				t.Errorf("error %q, want %q", st.Err, c.want)
			}
			if n := len(g.TokenRequests()); n != 0 {
				t.Errorf("%d token requests", n)
			}
		})
	}
}

// TestClientCredentialsBadAnswers: whatever the token endpoint answers
// wrongly, the server fails with an error naming what was wrong (never
// the secret), after one request: no loop.
func TestClientCredentialsBadAnswers(t *testing.T) {
	for _, c := range []struct {
		name, status, ctype, body, want string
	}{
		{"garbage", "200", "application/json", `{"access_token": "x", `, "not JSON"},
		{"html 503", "503", "text/html", `<html>down</html>`, "the server failed (HTTP 503)"},
		{"json 500", "500", "application/json", `{"error":"server_error","error_description":"db down"}`, "HTTP 500): server_error (db down)"},
		{"refused", "401", "application/json", `{"error":"invalid_client","error_description":"unknown client"}`, "refused: HTTP 401: invalid_client (unknown client)"},
		{"wrong type", "200", "application/json", `{"access_token":"t","token_type":"mac"}`, `token_type "mac" is not supported`},
		{"no type", "200", "application/json", `{"access_token":"t"}`, "no token_type"},
		{"expired", "200", "application/json", `{"access_token":"t","token_type":"Bearer","expires_in":-60}`, "expired before it arrived"},
		{"no token", "200", "application/json", `{"token_type":"Bearer"}`, "no access_token"},
		{"error in 200", "200", "application/json", `{"error":"invalid_scope"}`, "refused: HTTP 200: invalid_scope"},
		{"newline token", "200", "application/json", `{"access_token":"a\nb","token_type":"Bearer"}`, "not a usable token"},
		{"huge", "200", "application/json", `{"access_token":"` + strings.Repeat("a", 2<<20) + `","token_type":"Bearer"}`, "an answer over"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := mcptest.StartGrants(t)
			g.Answer(func(w http.ResponseWriter, r mcptest.TokenRequest) bool {
				w.Header().Set("Content-Type", c.ctype)
				var code int
				fmt.Sscan(c.status, &code)
				w.WriteHeader(code)
				_, _ = io.WriteString(w, c.body)
				return true
			})
			m := startManager(t, Options{ReconnectAttempts: 1,
				Env: grantEnv(map[string]string{"CC_SECRET": "very-secret-value"}),
				Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
					Grant: GrantClientCredentials, ClientID: "ci-client", ClientSecretEnv: "CC_SECRET"}}},
			})
			st := waitState(t, m, "svc", StateFailed)
			if !strings.Contains(st.Err, c.want) || strings.Contains(st.Err, "very-secret-value") {
				t.Errorf("error %q, want %q", st.Err, c.want)
			}
			if n := len(g.TokenRequests()); n != 1 {
				t.Errorf("%d token requests, want 1", n)
			}
		})
	}
}

// TestExpiredTokenNotSent: a stored token past its expiry is not sent; a
// new one is asked for first.
func TestExpiredTokenNotSent(t *testing.T) {
	g := mcptest.StartGrants(t)
	store := &memoryStore{}
	_ = store.Save("svc", &storedAuth{ServerURL: g.ResourceURL, Grant: GrantClientCredentials, ClientID: "ci-client",
		Token: Token{AccessToken: "stale-token", Expiry: time.Now().Add(-time.Minute)}})
	m := startManager(t, Options{
		Env: grantEnv(map[string]string{"CC_SECRET": "s"}),
		Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
			Grant: GrantClientCredentials, ClientID: "ci-client", ClientSecretEnv: "CC_SECRET"}}},
		OAuth: OAuthOptions{Store: store},
	})
	waitState(t, m, "svc", StateReady)
	if slices.Contains(g.SeenTokens(), "stale-token") {
		t.Errorf("the expired token was sent: %v", g.SeenTokens())
	}
	if st, _ := store.Load("svc"); st.Token.AccessToken != "granted-token-1" {
		t.Errorf("stored %+v", st.Token)
	}
}

// TestClientCredentialsStepUp: a tool call refused with 403
// insufficient_scope asks again with the union of the scopes and is
// retried once; an authorization server that never grants the scope gets
// one more request, not a loop, and the call fails saying so.
func TestClientCredentialsStepUp(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.RequireForCall("mcp:write")
	cfg := map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
		Grant: GrantClientCredentials, ClientID: "ci-client", ClientSecretEnv: "CC_SECRET"}}}
	m := startManager(t, Options{Env: grantEnv(map[string]string{"CC_SECRET": "s"}), Servers: cfg})
	waitState(t, m, "svc", StateReady)
	if res := call(t, m.Registry(), "mcp__svc__echo", `{"text":"w"}`); res.Text != "helper: w" {
		t.Fatalf("echo: %+v", res)
	}
	reqs := g.TokenRequests()
	if len(reqs) != 2 || reqs[0].Form.Get("scope") != "mcp:read" || reqs[1].Form.Get("scope") != "mcp:read mcp:write" {
		for _, r := range reqs {
			t.Logf("scope %q", r.Form.Get("scope"))
		}
		t.Fatalf("%d token requests", len(reqs))
	}

	g2 := mcptest.StartGrants(t)
	g2.RequireForCall("mcp:admin")
	g2.GrantScopes(func([]string) []string { return []string{"mcp:read"} })
	cfg2 := map[string]ServerConfig{"svc": {Type: "http", URL: g2.ResourceURL, OAuth: cfg["svc"].OAuth}}
	m2 := startManager(t, Options{Env: grantEnv(map[string]string{"CC_SECRET": "s"}), Servers: cfg2})
	waitState(t, m2, "svc", StateReady)
	tool, _ := m2.Registry().Get("mcp__svc__echo")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tool.Call(ctx, nil, []byte(`{"text":"x"}`))
	msg := fmt.Sprint(err)
	if err == nil {
		msg = res.Text
	}
	if !strings.Contains(msg, "still refuses (403 insufficient_scope)") {
		t.Errorf("call: %q", msg)
	}
	if n := len(g2.TokenRequests()); n != 2 {
		t.Errorf("%d token requests, want 2 (the grant and one step-up)", n)
	}
}

// TestAuthorizationCodeStepUp: with a user, the step-up sends them to the
// authorization page a second time with the union of the scopes, and the
// call goes through.
func TestAuthorizationCodeStepUp(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.RequireForCall("mcp:write")
	var scopes []string
	var opens atomic.Int32
	open := func(ctx context.Context, server, authURL string) error {
		opens.Add(1)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		scopes = append(scopes, req.URL.Query().Get("scope"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	m := startManager(t, Options{
		Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{ClientID: "public-client"}}},
		OAuth:   OAuthOptions{Open: open},
	})
	waitState(t, m, "svc", StateReady)
	if res := call(t, m.Registry(), "mcp__svc__echo", `{"text":"w"}`); res.Text != "helper: w" {
		t.Fatalf("echo: %+v", res)
	}
	if !slices.Equal(scopes, []string{"mcp:read", "mcp:read mcp:write"}) {
		t.Errorf("authorizations asked for %q", scopes)
	}
}

// TestStepUpWithoutUserIsRemembered: off a terminal (no Open) a step-up
// fails with a sentence saying how to sign in, and the next sign-in asks
// for the scope the server wanted.
func TestStepUpWithoutUserIsRemembered(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.RequireForCall("mcp:write")
	store := &memoryStore{}
	var scopes []string
	open := func(ctx context.Context, server, authURL string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		scopes = append(scopes, req.URL.Query().Get("scope"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	servers := map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{ClientID: "public-client"}}}
	login := startManager(t, Options{Servers: servers, OAuth: OAuthOptions{Store: store, Open: open}})
	waitState(t, login, "svc", StateReady)
	_ = login.Close()

	m := startManager(t, Options{Servers: servers, OAuth: OAuthOptions{Store: store}})
	waitState(t, m, "svc", StateReady)
	tool, _ := m.Registry().Get("mcp__svc__echo")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tool.Call(ctx, nil, []byte(`{"text":"x"}`))
	msg := fmt.Sprint(err)
	if err == nil {
		msg = res.Text
	}
	if !strings.Contains(msg, `needs more access (scope "mcp:read mcp:write")`) || !strings.Contains(msg, "agentls mcp login svc") {
		t.Errorf("call: %q", msg)
	}
	_ = m.Close()

	g.RevokeAll() // the next sign-in
	again := startManager(t, Options{Servers: servers, OAuth: OAuthOptions{Store: store, Open: open}})
	waitState(t, again, "svc", StateReady)
	if len(scopes) != 2 || scopes[1] != "mcp:read mcp:write" {
		t.Errorf("sign-ins asked for %q", scopes)
	}
	if st, _ := store.Load("svc"); st.PendingScope != "" {
		t.Errorf("pending scope kept: %q", st.PendingScope)
	}
}

// TestCrossAppAccess: the ID token (from the variable) is exchanged at the
// identity provider for an ID-JAG for this authorization server and
// resource, which the client, authenticated with its secret, trades for
// the access token.
func TestCrossAppAccess(t *testing.T) {
	g := mcptest.StartGrants(t)
	oauth := &OAuthConfig{Grant: GrantCrossAppAccess, ClientID: "xaa-client", ClientSecretEnv: "XAA_SECRET",
		IdP: &IdPConfig{Issuer: g.IdPURL, ClientID: "idp-client", IDTokenEnv: "ID_TOKEN"}}
	m := startManager(t, Options{
		Env:     grantEnv(map[string]string{"XAA_SECRET": "xaa-secret", "ID_TOKEN": "the-id-token"}),
		Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: oauth}},
	})
	waitState(t, m, "svc", StateReady)
	if res := call(t, m.Registry(), "mcp__svc__echo", `{"text":"xaa"}`); res.Text != "helper: xaa" {
		t.Fatalf("echo: %+v", res)
	}
	idp := g.IdPRequests()
	if len(idp) != 1 || idp[0].Form.Get("client_id") != "idp-client" || idp[0].Form.Get("scope") != "mcp:read" {
		t.Fatalf("IdP requests %+v", idp)
	}
	as := g.TokenRequests()
	if len(as) != 1 {
		t.Fatalf("%d token requests", len(as))
	}
	f := as[0].Form
	if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || f.Get("assertion") != "id-jag."+g.ResourceURL ||
		!as[0].HasBasic || as[0].BasicUser != "xaa-client" || as[0].BasicPass != "xaa-secret" {
		t.Errorf("JWT bearer request %v basic=%v %q", f, as[0].HasBasic, as[0].BasicUser)
	}
}

// TestCrossAppAccessFailures: a missing ID token, an IdP that answers
// with another token type or refuses, and an IdP on plain http to another
// machine each fail with a sentence, and nothing reaches the
// authorization server.
func TestCrossAppAccessFailures(t *testing.T) {
	for _, c := range []struct {
		name   string
		env    map[string]string
		idp    func(g *mcptest.GrantServer) *IdPConfig
		answer func(w http.ResponseWriter, r mcptest.TokenRequest) bool
		want   string
	}{
		{name: "no id token", env: map[string]string{},
			idp: func(g *mcptest.GrantServer) *IdPConfig {
				return &IdPConfig{Issuer: g.IdPURL, ClientID: "c", IDTokenEnv: "ID_TOKEN"}
			},
			want: "ID_TOKEN, which is not set"},
		{name: "wrong issued type", env: map[string]string{"ID_TOKEN": "the-id-token"},
			idp: func(g *mcptest.GrantServer) *IdPConfig {
				return &IdPConfig{Issuer: g.IdPURL, ClientID: "c", IDTokenEnv: "ID_TOKEN"}
			},
			answer: func(w http.ResponseWriter, r mcptest.TokenRequest) bool {
				_, _ = io.WriteString(w, `{"access_token":"x","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer"}`)
				return true
			},
			want: `issued_token_type "urn:ietf:params:oauth:token-type:access_token"`},
		{name: "expired id token", env: map[string]string{"ID_TOKEN": "the-id-token"},
			idp: func(g *mcptest.GrantServer) *IdPConfig {
				return &IdPConfig{Issuer: g.IdPURL, ClientID: "c", IDTokenEnv: "ID_TOKEN"}
			},
			answer: func(w http.ResponseWriter, r mcptest.TokenRequest) bool {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"ID token expired"}`)
				return true
			},
			want: "token exchange at the identity provider refused: HTTP 400: invalid_grant (ID token expired)"},
		{name: "plain http idp", env: map[string]string{"ID_TOKEN": "the-id-token"},
			idp: func(g *mcptest.GrantServer) *IdPConfig {
				return &IdPConfig{TokenEndpoint: "http://idp.example/token", ClientID: "c", IDTokenEnv: "ID_TOKEN"}
			},
			want: "credentials are sent only over https"},
		{name: "empty id token file", env: map[string]string{},
			idp: func(g *mcptest.GrantServer) *IdPConfig {
				p := filepath.Join(t.TempDir(), "idtoken")
				_ = os.WriteFile(p, []byte("\n"), 0o600)
				return &IdPConfig{Issuer: g.IdPURL, ClientID: "c", IDTokenFile: p}
			},
			want: "is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := mcptest.StartGrants(t)
			if c.answer != nil {
				g.AnswerIdP(c.answer)
			}
			env := map[string]string{"XAA_SECRET": "xaa-secret"}
			for k, v := range c.env {
				env[k] = v
			}
			m := startManager(t, Options{ReconnectAttempts: 1, Env: grantEnv(env),
				Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
					Grant: GrantCrossAppAccess, ClientID: "xaa-client", ClientSecretEnv: "XAA_SECRET", IdP: c.idp(g)}}},
			})
			st := waitState(t, m, "svc", StateFailed)
			if !strings.Contains(st.Err, c.want) || strings.Contains(st.Err, "the-id-token") {
				t.Errorf("error %q, want %q", st.Err, c.want)
			}
			if n := len(g.TokenRequests()); n != 0 {
				t.Errorf("%d requests reached the authorization server", n)
			}
		})
	}
}

// TestTokenEndpointMustBeSecure: credentials are never sent to a token
// endpoint on plain http to another machine.
func TestTokenEndpointMustBeSecure(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.SetMetadata("token_endpoint", "http://auth.example/token")
	m := startManager(t, Options{ReconnectAttempts: 1, Env: grantEnv(map[string]string{"CC_SECRET": "s"}),
		Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
			Grant: GrantClientCredentials, ClientID: "ci-client", ClientSecretEnv: "CC_SECRET"}}},
	})
	st := waitState(t, m, "svc", StateFailed)
	if !strings.Contains(st.Err, "credentials are sent only over https") {
		t.Errorf("error %q", st.Err)
	}
}

// TestClientCredentialsUnsetSecret: a secret variable that is not set is
// named in the error before anything is sent.
func TestClientCredentialsUnsetSecret(t *testing.T) {
	g := mcptest.StartGrants(t)
	m := startManager(t, Options{ReconnectAttempts: 1, Env: grantEnv(nil),
		Servers: map[string]ServerConfig{"svc": {Type: "http", URL: g.ResourceURL, OAuth: &OAuthConfig{
			Grant: GrantClientCredentials, ClientID: "ci-client", ClientSecretEnv: "CC_SECRET"}}},
	})
	st := waitState(t, m, "svc", StateFailed)
	if !strings.Contains(st.Err, "CC_SECRET, which is not set") || len(g.TokenRequests()) != 0 {
		t.Errorf("error %q, %d requests", st.Err, len(g.TokenRequests()))
	}
}

func TestOAuthConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  OAuthConfig
		want string
	}{
		{OAuthConfig{}, ""},
		{OAuthConfig{Grant: "password"}, `oauth.grant "password" is not one of`},
		{OAuthConfig{Grant: GrantClientCredentials}, "needs oauth.clientId"},
		{OAuthConfig{Grant: GrantClientCredentials, ClientID: "c"}, "needs oauth.clientSecretEnv"},
		{OAuthConfig{Grant: GrantClientCredentials, ClientID: "c", PrivateKeyFile: "/k"}, ""},
		{OAuthConfig{Grant: GrantClientCredentials, ClientID: "c", ClientSecretEnv: "X", TokenEndpointAuthMethod: "private_key_jwt"}, "needs oauth.privateKeyFile"},
		{OAuthConfig{Grant: GrantClientCredentials, ClientID: "c", ClientSecretEnv: "X", TokenEndpointAuthMethod: "tls_client_auth"}, "is not one of"},
		{OAuthConfig{Grant: GrantCrossAppAccess, ClientID: "c"}, "needs oauth.idp.issuer"},
		{OAuthConfig{Grant: GrantCrossAppAccess, ClientID: "c", IdP: &IdPConfig{Issuer: "https://idp"}}, "needs oauth.idp.clientId"},
		{OAuthConfig{Grant: GrantCrossAppAccess, ClientID: "c", IdP: &IdPConfig{Issuer: "https://idp", ClientID: "i"}}, "idTokenEnv"},
		{OAuthConfig{Grant: GrantCrossAppAccess, ClientID: "c", IdP: &IdPConfig{Issuer: "https://idp", ClientID: "i", IDTokenFile: "/t"}}, ""},
	} {
		err := c.cfg.Validate()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// BenchmarkClientAssertion measures what private_key_jwt adds to a token
// request: loading the key and signing the assertion (ES256).
func BenchmarkClientAssertion(b *testing.B) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	p := filepath.Join(b.TempDir(), "k.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		k, alg, err := loadPrivateKey(p, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := (clientCreds{id: "c", key: k, alg: alg, audience: "https://as.example"}).assertion(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClientCredentialsGrant measures one client credentials grant
// (discovery included) against a local authorization server: the cost of
// a step-up or an expired token for a headless client.
func BenchmarkClientCredentialsGrant(b *testing.B) {
	g := mcptest.StartGrants(b)
	tr := &oauthTransport{base: http.DefaultTransport, server: "svc", serverURL: g.ResourceURL,
		cfg: OAuthConfig{Grant: GrantClientCredentials, ClientID: "c", ClientSecretEnv: "S"}, opts: &OAuthOptions{Store: &memoryStore{}},
		env: grantEnv(map[string]string{"S": "secret"})}
	ch := challenge{status: http.StatusUnauthorized, scope: "mcp:read"}
	for b.Loop() {
		if _, err := tr.authorize(context.Background(), ch, "", false, nil); err != nil {
			b.Fatal(err)
		}
		tr.tok = "" // as if it were refused: the next round asks again
		_ = tr.store().Delete("svc")
	}
}

// A token answer's fractional expires_in is read as whole seconds (x/oauth2
// alone refuses it); other answers pass unchanged.
func TestWholeExpiry(t *testing.T) {
	for in, want := range map[string]string{
		`{"access_token":"a","expires_in":3600.0}`:   `{"access_token":"a","expires_in":3600}`,
		`{"access_token":"a","expires_in":1.5e3}`:    `{"access_token":"a","expires_in":1500}`,
		`{"access_token":"a","expires_in":3600}`:     `{"access_token":"a","expires_in":3600}`,
		`{"access_token":"a","expires_in":"3600.0"}`: `{"access_token":"a","expires_in":"3600.0"}`,
		`not json`: `not json`,
	} {
		if got := string(wholeExpiry([]byte(in))); got != want {
			t.Errorf("wholeExpiry(%s) = %s, want %s", in, got, want)
		}
	}
}
