package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// OAuth 2.1 for remote MCP servers, per the MCP authorization
// specification of protocol version 2025-11-25 (the version agentls pins).
// It is an http.RoundTripper under mcp-go's transports, so it works the
// same for streamable HTTP and SSE, and every request (tool calls included)
// is retried after authorizing: a 401 or 403 means the server did not act
// on it.
//
// On 401 (or 403 insufficient_scope) it: reads WWW-Authenticate
// (resource_metadata, scope); fetches the protected resource metadata
// (RFC 9728: the header's URL, else the well-known URLs for the path, then
// the root); fetches the authorization server metadata (RFC 8414 and OpenID
// discovery, path-aware; without any, the 2025-03-26 default endpoints on
// the server's origin); picks a client id (configured, a client ID metadata
// document URL when the server supports them, else dynamic client
// registration, RFC 7591); sends the user to the authorization endpoint with
// PKCE (S256), state and the resource parameter (RFC 8707) through
// OAuthOptions.Open; receives the code on a loopback listener
// (127.0.0.1, random port, checks state, one use); exchanges it; and retries
// the request. Tokens (and registrations) are stored per server with
// owner-only permissions; an expired token is refreshed first. mcp-go's own
// OAuth handler is not used: it cannot take the scope from WWW-Authenticate,
// step up on 403 or use client ID metadata documents. golang.org/x/oauth2
// does the protocol's client side (PKCE, the authorization URL, token
// requests, client authentication); the discovery, registration, resource
// indicator, store, loopback listener and the grants it has no helper for
// are here.

// OAuthConfig is the optional "oauth" entry of a remote server's
// configuration.
type OAuthConfig struct {
	// Grant is how a token is obtained: "authorization_code" (the default:
	// the user signs in in a browser), "client_credentials" (the client
	// authenticates as itself with a secret or a private key: headless use
	// and CI, no browser) or "cross_app_access" (an enterprise identity
	// provider's ID token is exchanged for an identity assertion grant,
	// which the server's authorization server trades for a token; no
	// browser either). See oauth_grants.go.
	Grant string `json:"grant,omitempty"`
	// ClientID and ClientSecret of a client registered in advance; without
	// them, a client ID metadata document or dynamic registration is used
	// (authorization_code only). ClientSecret is read only from the user's
	// own configuration: a workspace file cannot hold it (agent/config
	// drops it); ClientSecretEnv names the environment variable holding
	// it instead.
	ClientID        string `json:"clientId,omitempty"`
	ClientSecret    string `json:"clientSecret,omitempty"`
	ClientSecretEnv string `json:"clientSecretEnv,omitempty"`
	// PrivateKeyFile is a PEM private key (PKCS#8, SEC 1 EC or PKCS#1 RSA;
	// owner-only permissions) the client proves itself with: a signed JWT
	// client assertion (private_key_jwt, RFC 7523) instead of a secret.
	// ${VAR} and a leading ~/ are expanded.
	PrivateKeyFile string `json:"privateKeyFile,omitempty"`
	// SigningAlgorithm of the client assertion; default from the key: ES256
	// (P-256), ES384 (P-384), ES512 (P-521), RS256 (RSA), EdDSA (Ed25519).
	SigningAlgorithm string `json:"signingAlgorithm,omitempty"`
	// TokenEndpointAuthMethod forces how the client authenticates to the
	// token endpoint (client_secret_basic, client_secret_post,
	// private_key_jwt, none); default: private_key_jwt with a key, else the
	// authorization server's preference among the secret methods.
	TokenEndpointAuthMethod string `json:"tokenEndpointAuthMethod,omitempty"`
	// Scopes requested when the server names none.
	Scopes []string `json:"scopes,omitempty"`
	// ClientMetadataURL is an HTTPS URL serving this client's metadata
	// document (draft-ietf-oauth-client-id-metadata-document), used as the
	// client id by authorization servers that support it.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// IdP is the enterprise identity provider of the cross_app_access
	// grant.
	IdP *IdPConfig `json:"idp,omitempty"`
}

// IdPConfig is the identity provider of the cross_app_access grant (MCP's
// enterprise-managed authorization, SEP-990): where the user's ID token is
// exchanged (RFC 8693) for an identity assertion JWT authorization grant
// (ID-JAG) for the MCP server's authorization server.
type IdPConfig struct {
	// Issuer of the IdP; its token endpoint is found through OpenID
	// discovery unless TokenEndpoint is given.
	Issuer        string `json:"issuer,omitempty"`
	TokenEndpoint string `json:"tokenEndpoint,omitempty"`
	// ClientID (and the variable holding the secret, if the IdP wants one)
	// of agentls's client at the IdP.
	ClientID        string `json:"clientId,omitempty"`
	ClientSecretEnv string `json:"clientSecretEnv,omitempty"`
	// IDTokenEnv or IDTokenFile hold the user's ID token from the IdP
	// (from the company's single sign-on tooling). The file is read at each
	// exchange, so a helper can keep it fresh.
	IDTokenEnv  string `json:"idTokenEnv,omitempty"`
	IDTokenFile string `json:"idTokenFile,omitempty"`
}

// Grants of OAuthConfig.Grant.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	GrantCrossAppAccess    = "cross_app_access"
)

// grant is c's grant, the authorization code by default.
func (c OAuthConfig) grant() string {
	if c.Grant == "" {
		return GrantAuthorizationCode
	}
	return c.Grant
}

// machine reports whether c's grant needs no user: the token is asked for
// again instead of sending anyone to a browser.
func (c OAuthConfig) machine() bool {
	return c.grant() == GrantClientCredentials || c.grant() == GrantCrossAppAccess
}

// Validate reports what is missing or contradictory in c, so a wrong entry
// fails with a sentence instead of a refused token request.
func (c OAuthConfig) Validate() error {
	switch c.grant() {
	case GrantAuthorizationCode:
		if c.PrivateKeyFile != "" && c.ClientID == "" {
			return errors.New("oauth.privateKeyFile needs oauth.clientId")
		}
	case GrantClientCredentials:
		if c.ClientID == "" {
			return errors.New(`oauth.grant "client_credentials" needs oauth.clientId`)
		}
		if c.ClientSecret == "" && c.ClientSecretEnv == "" && c.PrivateKeyFile == "" {
			return errors.New(`oauth.grant "client_credentials" needs oauth.clientSecretEnv (the variable holding the secret) or oauth.privateKeyFile`)
		}
	case GrantCrossAppAccess:
		if c.ClientID == "" {
			return errors.New(`oauth.grant "cross_app_access" needs oauth.clientId (agentls's client at the MCP server's authorization server)`)
		}
		if c.IdP == nil || (c.IdP.Issuer == "" && c.IdP.TokenEndpoint == "") {
			return errors.New(`oauth.grant "cross_app_access" needs oauth.idp.issuer or oauth.idp.tokenEndpoint`)
		}
		if c.IdP.ClientID == "" {
			return errors.New(`oauth.grant "cross_app_access" needs oauth.idp.clientId`)
		}
		if c.IdP.IDTokenEnv == "" && c.IdP.IDTokenFile == "" {
			return errors.New(`oauth.grant "cross_app_access" needs oauth.idp.idTokenEnv or oauth.idp.idTokenFile (where your ID token from the identity provider is)`)
		}
	default:
		return fmt.Errorf("oauth.grant %q is not one of authorization_code, client_credentials, cross_app_access", c.Grant)
	}
	switch c.TokenEndpointAuthMethod {
	case "", "client_secret_basic", "client_secret_post", "none":
	case "private_key_jwt":
		if c.PrivateKeyFile == "" {
			return errors.New(`oauth.tokenEndpointAuthMethod "private_key_jwt" needs oauth.privateKeyFile`)
		}
	default:
		return fmt.Errorf("oauth.tokenEndpointAuthMethod %q is not one of client_secret_basic, client_secret_post, private_key_jwt, none", c.TokenEndpointAuthMethod)
	}
	return nil
}

// OAuthOptions are the manager's means to authorize.
type OAuthOptions struct {
	// Store keeps tokens and registrations; nil keeps them in memory.
	Store TokenStore
	// Open sends the user to the authorization URL (the editor's
	// window/showDocument, the CLI's browser); nil: servers that need
	// authorization fail with a message saying to log in.
	Open func(ctx context.Context, server, authURL string) error
	// ClientName is sent in dynamic registration (default "agentls").
	ClientName string
	// Timeout bounds the user's authorization step (default 5 minutes).
	Timeout time.Duration
}

// maxAuthorizations bounds authorizations for one request, so a server
// that keeps refusing (403 insufficient_scope after every new token) cannot
// loop forever.
const maxAuthorizations = 3

// ErrAuthorizationNeeded is why a server needing OAuth fails when no
// browser step is possible; "agentls mcp login SERVER" authorizes it.
var ErrAuthorizationNeeded = errors.New("it needs you to log in first (agentls mcp login SERVER)")

// oauthTransport adds the server's bearer token to requests and authorizes
// when the server asks.
type oauthTransport struct {
	base      http.RoundTripper
	server    string
	serverURL string
	cfg       OAuthConfig
	opts      *OAuthOptions
	env       func(string) string // ${VAR} and *Env lookups; nil: os.Getenv

	// lifetime ends with the manager: the user's authorization step
	// outlives the request that needed it (bounded by OAuthOptions.Timeout),
	// so a slow sign-in serves the next connection attempt.
	lifetime context.Context

	mu sync.Mutex // one authorization at a time

	tokMu  sync.Mutex
	tok    string    // the access token in use; read from the store once, then kept
	exp    time.Time // its expiry (zero: unknown)
	loaded bool
}

func (t *oauthTransport) store() TokenStore { return t.opts.Store }

// accessToken returns the access token to send ("" for none), reading the store
// only the first time: requests do not touch the disk.
func (t *oauthTransport) accessToken() string {
	t.tokMu.Lock()
	defer t.tokMu.Unlock()
	if !t.loaded {
		if st, _ := t.store().Load(t.server); st != nil && t.valid(st) {
			t.tok, t.exp = st.Token.AccessToken, st.Token.Expiry
		}
		t.loaded = true
	}
	if !t.exp.IsZero() && time.Until(t.exp) < expirySkew {
		return "" // expired: the server's 401 leads to a refresh or a new grant
	}
	return t.tok
}

// expirySkew is how long before its expiry a token is no longer sent, so
// it cannot expire on the way.
const expirySkew = 30 * time.Second

// usable reports whether tok can still be sent.
func (tok Token) usable() bool {
	return tok.AccessToken != "" && (tok.Expiry.IsZero() || time.Until(tok.Expiry) >= expirySkew)
}

// valid reports whether st was stored for this server's URL, grant and,
// for the grants without a user, client.
func (t *oauthTransport) valid(st *storedAuth) bool {
	if !st.valid(t.serverURL) || st.grant() != t.cfg.grant() {
		return false
	}
	return !t.cfg.machine() || st.ClientID == t.cfg.ClientID
}

// save stores st and uses its token from now on.
func (t *oauthTransport) save(st *storedAuth) error {
	t.tokMu.Lock()
	t.tok, t.exp, t.loaded = st.Token.AccessToken, st.Token.Expiry, true
	t.tokMu.Unlock()
	st.Grant = t.cfg.grant()
	if st.Grant == GrantAuthorizationCode {
		st.Grant = "" // as files written before grants existed
	}
	return t.store().Save(t.server, st)
}

func (t *oauthTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil && r.GetBody == nil {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	sent := ""
	attempt := func() (*http.Response, error) {
		q := r.Clone(r.Context())
		switch {
		case body != nil:
			q.Body = io.NopCloser(bytes.NewReader(body))
		case r.GetBody != nil:
			b, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			q.Body = b
		}
		sent = ""
		if sent = t.accessToken(); sent != "" {
			q.Header.Set("Authorization", "Bearer "+sent)
		}
		return t.base.RoundTrip(q)
	}
	resp, err := attempt()
	var asked []string // scopes asked for by this request's authorizations
	for i := 0; err == nil && i < maxAuthorizations; i++ {
		ch, need := challengeOf(resp)
		if !need {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		got, aerr := t.authorize(r.Context(), ch, sent, i == 0 && resp.StatusCode == http.StatusUnauthorized, asked)
		if aerr != nil {
			return nil, fmt.Errorf("MCP server %q could not be authorized: %w", t.server, aerr)
		}
		asked = unionScopes(asked, got)
		resp, err = attempt()
	}
	if err == nil {
		if _, need := challengeOf(resp); need {
			_ = resp.Body.Close()
			return nil, fmt.Errorf("MCP server %q: still refused after %d authorizations (HTTP %d)", t.server, maxAuthorizations, resp.StatusCode)
		}
	}
	return resp, err
}

// challenge is a parsed WWW-Authenticate Bearer challenge.
type challenge struct {
	status           int
	resourceMetadata string
	scope            string
	err              string
}

// challengeOf reports whether resp asks for (more) authorization: 401, or
// 403 with error="insufficient_scope".
func challengeOf(resp *http.Response) (challenge, bool) {
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return challenge{}, false
	}
	ch := challenge{status: resp.StatusCode}
	for _, h := range resp.Header.Values("WWW-Authenticate") {
		params := authParams(h)
		if v, ok := params["resource_metadata"]; ok {
			ch.resourceMetadata = v
		}
		if v, ok := params["scope"]; ok {
			ch.scope = v
		}
		if v, ok := params["error"]; ok {
			ch.err = v
		}
	}
	if resp.StatusCode == http.StatusForbidden && ch.err != "insufficient_scope" {
		return ch, false
	}
	return ch, true
}

// authParams parses the auth-params of a challenge (`Bearer a="b", c=d`).
func authParams(h string) map[string]string {
	out := map[string]string{}
	s := strings.TrimSpace(h)
	if i := strings.IndexByte(s, ' '); i > 0 && !strings.Contains(s[:i], "=") {
		s = s[i+1:]
	}
	for len(s) > 0 {
		s = strings.TrimLeft(s, " ,")
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			break
		}
		key := strings.ToLower(strings.TrimSpace(s[:eq]))
		s = s[eq+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			val = b.String()
			s = s[min(i+1, len(s)):]
		} else {
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			val = strings.TrimSpace(s[:end])
			s = s[end:]
		}
		out[key] = val
	}
	return out
}

// errNoStepUp is why a request refused with 403 insufficient_scope is not
// authorized again: this request already asked for every scope the server
// names, so asking again would loop (the authorization server grants less,
// or the server wants something no scope gives).
var errNoStepUp = errors.New("the server still refuses (403 insufficient_scope) after authorizing with every scope it asked for")

// authorize obtains a token: by refreshing when allowed and possible, by
// the configured grant without a user, else through the user. asked are the
// scopes this request's earlier authorizations asked for: a 403 step-up
// that would ask for nothing new fails with errNoStepUp instead (one retry
// per step-up). It returns the scopes it asked for.
func (t *oauthTransport) authorize(ctx context.Context, ch challenge, sent string, mayRefresh bool, asked []string) ([]string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, _ := t.store().Load(t.server)
	if st == nil || !t.valid(st) {
		st = &storedAuth{ServerURL: t.serverURL}
	}
	if st.Token.usable() && st.Token.AccessToken != sent && ch.status == http.StatusUnauthorized {
		// Authorized meanwhile (another request, an earlier attempt, or
		// "agentls mcp login" in another process): try that token.
		t.tokMu.Lock()
		t.tok, t.exp, t.loaded = st.Token.AccessToken, st.Token.Expiry, true
		t.tokMu.Unlock()
		return nil, nil
	}
	timeout := t.opts.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if t.lifetime != nil {
		defer context.AfterFunc(t.lifetime, cancel)()
	}
	prm, as, err := t.discover(ctx, ch)
	if err != nil {
		return nil, err
	}
	scope := t.scope(ch, prm, st)
	want := strings.Fields(scope)
	if ch.status == http.StatusForbidden && len(asked) > 0 && len(unionScopes(asked, want)) == len(asked) {
		return nil, fmt.Errorf("%w (%s)", errNoStepUp, scope)
	}
	if mayRefresh && st.Token.RefreshToken != "" && st.ClientID != "" {
		if err := t.refresh(ctx, st, as, prm); err == nil {
			return nil, nil
		}
	}
	switch t.cfg.grant() {
	case GrantClientCredentials:
		return want, t.clientCredentials(ctx, st, as, prm, scope)
	case GrantCrossAppAccess:
		return want, t.crossAppAccess(ctx, st, as, prm, scope)
	}
	if t.opts.Open == nil {
		if ch.status == http.StatusForbidden {
			// Remember what the server wants, so that "agentls mcp login"
			// asks for it.
			st.PendingScope = scope
			_ = t.store().Save(t.server, st)
			return nil, fmt.Errorf("it needs more access (scope %q): sign in again with 'agentls mcp login %s' or call it from a terminal", scope, t.server)
		}
		return nil, ErrAuthorizationNeeded
	}
	if err := t.register(ctx, st, as); err != nil {
		return nil, err
	}
	return want, t.authorizeCode(ctx, st, as, prm, scope)
}

// unionScopes is a followed by the scopes of b not in it.
func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// scope picks what to ask for: the challenge's scope (united with what was
// granted before, for a step-up), else the resource's scopes_supported,
// else the configured scopes, else none; a scope a step-up could not get
// without the user (PendingScope) is added.
func (t *oauthTransport) scope(ch challenge, prm *resourceMetadata, st *storedAuth) string {
	var want []string
	switch {
	case ch.scope != "":
		want = strings.Fields(ch.scope)
		if ch.status == http.StatusForbidden {
			want = unionScopes(strings.Fields(st.Token.Scope), want)
		}
	case prm != nil && len(prm.ScopesSupported) > 0:
		want = prm.ScopesSupported
	default:
		want = t.cfg.Scopes
	}
	want = unionScopes(want, strings.Fields(st.PendingScope))
	return strings.Join(want, " ")
}

// resourceMetadata is RFC 9728 protected resource metadata.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// asMetadata is RFC 8414 authorization server metadata.
type asMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	// Algorithms accepted for private_key_jwt client assertions.
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported"`
}

// discover finds the protected resource and authorization server metadata.
func (t *oauthTransport) discover(ctx context.Context, ch challenge) (*resourceMetadata, *asMetadata, error) {
	su, err := url.Parse(t.serverURL)
	if err != nil {
		return nil, nil, err
	}
	origin := su.Scheme + "://" + su.Host
	var prm *resourceMetadata
	candidates := []string{}
	if ch.resourceMetadata != "" {
		candidates = append(candidates, ch.resourceMetadata)
	}
	if p := strings.TrimSuffix(su.Path, "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	for _, c := range candidates {
		var m resourceMetadata
		if t.getJSON(ctx, c, &m) == nil && len(m.AuthorizationServers) > 0 {
			prm = &m
			break
		}
	}
	if prm != nil && prm.Resource != "" && !resourceCovers(prm.Resource, t.serverURL) {
		// RFC 9728 §3.3: metadata for another resource must not be used.
		return nil, nil, fmt.Errorf("the protected resource metadata is for %s, not for %s", prm.Resource, t.serverURL)
	}
	issuer := origin // 2025-03-26: the server's origin is the authorization server
	if prm != nil {
		issuer = prm.AuthorizationServers[0]
	}
	iu, err := url.Parse(issuer)
	if err != nil {
		return nil, nil, fmt.Errorf("authorization server %q: %w", issuer, err)
	}
	iorigin := iu.Scheme + "://" + iu.Host
	var tries []string
	if p := strings.TrimSuffix(iu.Path, "/"); p != "" {
		tries = []string{iorigin + "/.well-known/oauth-authorization-server" + p, iorigin + "/.well-known/openid-configuration" + p, iorigin + p + "/.well-known/openid-configuration"}
	} else {
		tries = []string{iorigin + "/.well-known/oauth-authorization-server", iorigin + "/.well-known/openid-configuration"}
	}
	for _, u := range tries {
		var m asMetadata
		if t.getJSON(ctx, u, &m) == nil && m.AuthorizationEndpoint != "" && m.TokenEndpoint != "" {
			return prm, &m, nil
		}
	}
	if prm != nil {
		return nil, nil, fmt.Errorf("no authorization server metadata for %s", issuer)
	}
	// 2025-03-26 fallback: default endpoints on the origin.
	return nil, &asMetadata{Issuer: iorigin, AuthorizationEndpoint: iorigin + "/authorize", TokenEndpoint: iorigin + "/token",
		RegistrationEndpoint: iorigin + "/register", CodeChallengeMethodsSupported: []string{"S256"}}, nil
}

func (t *oauthTransport) client() *http.Client {
	return &http.Client{Transport: t.base, Timeout: 30 * time.Second}
}

func (t *oauthTransport) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := t.client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// register gives st a client id: configured, a metadata document URL, a
// stored registration, or a new dynamic registration.
func (t *oauthTransport) register(ctx context.Context, st *storedAuth, as *asMetadata) error {
	switch {
	case t.cfg.ClientID != "":
		// The secret stays in the configuration (or its variable): it is
		// looked up at each token request, never copied to the token file.
		st.ClientID, st.ClientSecret, st.AuthMethod = t.cfg.ClientID, "", ""
		return nil
	case as.ClientIDMetadataDocumentSupported && t.cfg.ClientMetadataURL != "":
		st.ClientID, st.ClientSecret, st.AuthMethod = t.cfg.ClientMetadataURL, "", "none"
		return nil
	case st.ClientID != "" && st.Issuer == as.Issuer:
		return nil
	case as.RegistrationEndpoint == "":
		return errors.New("the authorization server offers no dynamic client registration: configure oauth.clientId")
	}
	name := t.opts.ClientName
	if name == "" {
		name = "agentls"
	}
	reqBody, _ := json.Marshal(map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{"http://127.0.0.1/callback"},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, bytes.NewReader(reqBody))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client().Do(req)
	if err != nil {
		return fmt.Errorf("client registration: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("client registration: HTTP %d: %s", resp.StatusCode, b)
	}
	var reg struct {
		ClientID                string `json:"client_id"`
		ClientSecret            string `json:"client_secret"`
		TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&reg); err != nil || reg.ClientID == "" {
		return fmt.Errorf("client registration: no client_id in the answer")
	}
	st.ClientID, st.ClientSecret, st.AuthMethod, st.Issuer = reg.ClientID, reg.ClientSecret, reg.TokenEndpointAuthMethod, as.Issuer
	return nil
}

// authorizeCode runs the authorization code flow with PKCE through the
// user and stores the token.
func (t *oauthTransport) authorizeCode(ctx context.Context, st *storedAuth, as *asMetadata, prm *resourceMetadata, scope string) error {
	if len(as.CodeChallengeMethodsSupported) > 0 && !slices.Contains(as.CodeChallengeMethodsSupported, "S256") {
		return errors.New("the authorization server does not support PKCE with S256")
	}
	// The address is the authorization server's to choose, so it is
	// checked before anything can open it: vscode://, file://, javascript:
	// or "--help" would run something instead of showing a sign-in page.
	if err := CheckBrowserURL(as.AuthorizationEndpoint); err != nil {
		return fmt.Errorf("the authorization server's authorization_endpoint was refused: %w", err)
	}
	state, verifier := rand.Text(), oauth2.GenerateVerifier()
	lb, err := listenLoopback(state)
	if err != nil {
		return err
	}
	defer lb.close()
	conf := oauth2.Config{ClientID: st.ClientID, RedirectURL: lb.redirectURI, Scopes: strings.Fields(scope),
		Endpoint: oauth2.Endpoint{AuthURL: as.AuthorizationEndpoint, TokenURL: as.TokenEndpoint}}
	resource := oauth2.SetAuthURLParam("resource", t.resource(prm))
	if err := t.opts.Open(ctx, t.server, conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), resource)); err != nil {
		return fmt.Errorf("opening the authorization page: %w", err)
	}
	code, err := lb.wait(ctx)
	if err != nil {
		return err
	}
	// The client's credentials are looked up only now, as for every token
	// request: a secret's variable may be set while the user signs in.
	c, err := t.creds(st, as)
	if err != nil {
		return err
	}
	secret, style, fields, err := c.auth("token request", as.TokenEndpoint)
	if err != nil {
		return err
	}
	conf.ClientSecret, conf.Endpoint.AuthStyle = secret, style
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier), resource}
	for k := range fields {
		opts = append(opts, oauth2.SetAuthURLParam(k, fields.Get(k)))
	}
	got, err := conf.Exchange(t.tokenContext(ctx), code, opts...)
	if got, err = checkToken("token request", got, err); err != nil {
		return err
	}
	tok, err := bearer("token request", got)
	if err != nil {
		return err
	}
	if tok.Scope == "" {
		tok.Scope = scope
	}
	st.Token, st.PendingScope = *tok, ""
	return t.save(st)
}

// refresh trades the refresh token for a new access token.
func (t *oauthTransport) refresh(ctx context.Context, st *storedAuth, as *asMetadata, prm *resourceMetadata) error {
	tok, err := t.token(ctx, st, as, url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {st.Token.RefreshToken},
		"resource":      {t.resource(prm)},
	})
	if err != nil {
		return err // x/oauth2 kept the refresh token if the answer has none
	}
	if tok.Scope == "" {
		tok.Scope = st.Token.Scope
	}
	st.Token = *tok
	return t.save(st)
}

// resource is the RFC 8707 resource indicator: the protected resource
// metadata's resource, else the server URL without fragment.
func (t *oauthTransport) resource(prm *resourceMetadata) string {
	if prm != nil && prm.Resource != "" {
		return prm.Resource
	}
	u, err := url.Parse(t.serverURL)
	if err != nil {
		return t.serverURL
	}
	u.Fragment = ""
	return u.String()
}

// resourceCovers reports whether the resource identifier resource names the
// server at serverURL: same scheme and host, and a path that is the
// server's path or a parent of it.
func resourceCovers(resource, serverURL string) bool {
	r, err1 := url.Parse(resource)
	u, err2 := url.Parse(serverURL)
	if err1 != nil || err2 != nil {
		return false
	}
	if !strings.EqualFold(r.Scheme, u.Scheme) || !strings.EqualFold(r.Host, u.Host) {
		return false
	}
	rp, up := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(u.Path, "/")
	return rp == "" || up == rp || strings.HasPrefix(up, rp+"/")
}
