package mcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agentls/agentls/internal/safetext"
)

// Grants without a user, and how the client authenticates at token
// endpoints.
//
// client_credentials (OAuth 2.1 §4.2; MCP's client credentials extension,
// SEP-1046): the client is the principal. It authenticates with its secret
// (client_secret_basic or client_secret_post) or with a JWT it signs with
// its private key (private_key_jwt, RFC 7523 §2.2: iss = sub = client id,
// aud = the authorization server's issuer, a short expiry and a unique
// jti), and asks for a token for the resource with the scope the server
// names. A 401 or a 403 insufficient_scope just asks again (with the union
// of the scopes for a step-up): there is no one to send to a browser.
//
// cross_app_access (MCP's enterprise-managed authorization, SEP-990, on
// draft-ietf-oauth-identity-assertion-authz-grant): the user's ID token
// from the enterprise identity provider is exchanged at the IdP (RFC 8693:
// subject_token_type id_token, requested_token_type id-jag, audience = the
// MCP server's authorization server, resource = the MCP server) for an
// identity assertion JWT authorization grant (ID-JAG), which the client
// (authenticated with its own credentials) trades at the MCP server's
// authorization server with the JWT bearer grant (RFC 7523 §2.1) for an
// access token.
//
// Every token endpoint must be https (or http on this machine): secrets,
// assertions and ID tokens go there. Answers are checked: JSON, HTTP 200,
// an access token of type Bearer, a lifetime that is not negative; an
// error answer is reported with the server's error code and description,
// never with what was sent.

// OAuth URNs of these grants.
const (
	grantTypeTokenExchange  = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantTypeJWTBearer      = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken        = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG          = "urn:ietf:params:oauth:token-type:id-jag"
	clientAssertionTypeJWT  = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	assertionLifetime       = 5 * time.Minute
	maxTokenAnswer          = 1 << 20
	maxAccessToken          = 16 << 10
	maxPrivateKeyFile       = 64 << 10
	maxIDTokenFile          = 64 << 10
	authMethodBasic         = "client_secret_basic"
	authMethodPost          = "client_secret_post"
	authMethodPrivateKeyJWT = "private_key_jwt"
	authMethodNone          = "none"
)

func (t *oauthTransport) getenv(name string) string {
	if t.env != nil {
		return t.env(name)
	}
	return os.Getenv(name)
}

// path expands ${VAR} and a leading ~/ in a configured file name.
func (t *oauthTransport) path(p string) string {
	p = (&expander{lookup: t.getenv}).expand(p)
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home := t.getenv("HOME"); home != "" {
			p = filepath.Join(home, rest)
		}
	}
	return p
}

// secretFrom reads a secret from the variable name (configured as key).
func (t *oauthTransport) secretFrom(key, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	v := strings.TrimSpace(t.getenv(name))
	if v == "" {
		return "", fmt.Errorf("%s names the environment variable %s, which is not set", key, name)
	}
	return v, nil
}

// clientCreds is how a client authenticates at a token endpoint.
type clientCreds struct {
	id, secret string
	method     string
	key        any // private key for private_key_jwt
	alg        jwt.SigningMethod
	audience   string // of the client assertion: the authorization server's issuer
}

// creds are the client's credentials at the authorization server as: the
// configured client (secret from the configuration or its variable, or the
// private key), else the stored registration.
func (t *oauthTransport) creds(st *storedAuth, as *asMetadata) (clientCreds, error) {
	c := clientCreds{id: st.ClientID, secret: st.ClientSecret, method: st.AuthMethod, audience: as.Issuer}
	if c.audience == "" {
		c.audience = as.TokenEndpoint
	}
	if t.cfg.ClientID != "" && st.ClientID == t.cfg.ClientID {
		c.secret, c.method = t.cfg.ClientSecret, t.cfg.TokenEndpointAuthMethod
		if t.cfg.ClientSecretEnv != "" {
			s, err := t.secretFrom("oauth.clientSecretEnv", t.cfg.ClientSecretEnv)
			if err != nil {
				return c, err
			}
			c.secret = s
		}
		if t.cfg.PrivateKeyFile != "" && (c.method == "" || c.method == authMethodPrivateKeyJWT) {
			key, alg, err := loadPrivateKey(t.path(t.cfg.PrivateKeyFile), t.cfg.SigningAlgorithm)
			if err != nil {
				return c, err
			}
			if algs := as.TokenEndpointAuthSigningAlgValuesSupported; len(algs) > 0 && !slices.Contains(algs, alg.Alg()) {
				return c, fmt.Errorf("the authorization server accepts client assertions signed with %s, not %s (set oauth.signingAlgorithm or use another key)",
					strings.Join(algs, ", "), alg.Alg())
			}
			c.key, c.alg, c.method = key, alg, authMethodPrivateKeyJWT
		}
	}
	if c.method == "" {
		supported := as.TokenEndpointAuthMethodsSupported
		switch {
		case c.secret == "":
			c.method = authMethodNone
		case slices.Contains(supported, authMethodBasic) || len(supported) == 0:
			c.method = authMethodBasic
		case slices.Contains(supported, authMethodPost):
			c.method = authMethodPost
		default:
			c.method = authMethodBasic
		}
	}
	if (c.method == authMethodBasic || c.method == authMethodPost) && c.secret == "" {
		return c, fmt.Errorf("token endpoint authentication %s needs a client secret (oauth.clientSecretEnv)", c.method)
	}
	return c, nil
}

// authenticate adds the client's authentication to a token request: form
// fields, and the Basic credentials to set on the request ("" for none).
func (c clientCreds) authenticate(form url.Values) (user, pass string, err error) {
	switch c.method {
	case authMethodBasic:
		// RFC 6749 §2.3.1: both are form-urlencoded before Basic encoding.
		return url.QueryEscape(c.id), url.QueryEscape(c.secret), nil
	case authMethodPost:
		form.Set("client_id", c.id)
		form.Set("client_secret", c.secret)
	case authMethodPrivateKeyJWT:
		a, err := c.assertion()
		if err != nil {
			return "", "", err
		}
		form.Set("client_id", c.id)
		form.Set("client_assertion_type", clientAssertionTypeJWT)
		form.Set("client_assertion", a)
	default:
		if c.id != "" {
			form.Set("client_id", c.id)
		}
	}
	return "", "", nil
}

// assertion is the signed client assertion of private_key_jwt (RFC 7523
// §3): issued by and about the client, for the authorization server, valid
// for a few minutes, with a unique id so it cannot be replayed.
func (c clientCreds) assertion() (string, error) {
	now := time.Now()
	claims := jwt.RegisteredClaims{
		Issuer: c.id, Subject: c.id, Audience: jwt.ClaimStrings{c.audience},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(assertionLifetime)),
		ID: randomString(),
	}
	s, err := jwt.NewWithClaims(c.alg, claims).SignedString(c.key)
	if err != nil {
		return "", fmt.Errorf("signing the client assertion with oauth.privateKeyFile: %w", err)
	}
	return s, nil
}

// loadPrivateKey reads a PEM private key that only its owner can read, and
// picks the signing algorithm (alg, or the key's usual one).
func loadPrivateKey(path, alg string) (any, jwt.SigningMethod, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("oauth.privateKeyFile: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("oauth.privateKeyFile %s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, nil, fmt.Errorf("oauth.privateKeyFile %s can be read by others (mode %v): make it owner-only (chmod 600)", path, fi.Mode().Perm())
	}
	if fi.Size() > maxPrivateKeyFile {
		return nil, nil, fmt.Errorf("oauth.privateKeyFile %s is too large for a key", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("oauth.privateKeyFile: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, nil, fmt.Errorf("oauth.privateKeyFile %s holds no PEM block", path)
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "ENCRYPTED PRIVATE KEY":
		return nil, nil, fmt.Errorf("oauth.privateKeyFile %s is encrypted; agentls needs it unencrypted (and owner-only)", path)
	default:
		return nil, nil, fmt.Errorf("oauth.privateKeyFile %s holds a %q PEM block, not a private key", path, block.Type)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("oauth.privateKeyFile %s: %w", path, err)
	}
	def := ""
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			def = "ES256"
		case elliptic.P384():
			def = "ES384"
		case elliptic.P521():
			def = "ES512"
		}
	case *rsa.PrivateKey:
		def = "RS256"
	case ed25519.PrivateKey:
		def = "EdDSA"
	}
	if alg == "" {
		alg = def
	}
	m := jwt.GetSigningMethod(alg)
	if m == nil || alg == "none" {
		return nil, nil, fmt.Errorf("oauth.signingAlgorithm %q is not a JWT signing algorithm agentls knows", alg)
	}
	return key, m, nil
}

// checkTokenEndpoint refuses to send credentials anywhere but https (or
// http on this machine).
func checkTokenEndpoint(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%s %q is not a valid address", what, safetext.Bound(safetext.Line(raw), 200))
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if loopbackHost(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("%s %s is refused: credentials are sent only over https (or http on this machine)", what, safetext.Bound(safetext.Line(raw), 200))
}

// tokenAnswer is a token endpoint's JSON answer (RFC 6749 §5, RFC 8693
// §2.2).
type tokenAnswer struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	IssuedTokenType string `json:"issued_token_type"`
	RefreshToken    string `json:"refresh_token"`
	ExpiresIn       any    `json:"expires_in"` // a number; some servers send a string
	Scope           string `json:"scope"`
	Error           string `json:"error"`
	ErrorDesc       string `json:"error_description"`
}

// postToken sends a token request to endpoint with the client's
// authentication and returns the checked answer.
func (t *oauthTransport) postToken(ctx context.Context, what, endpoint string, form url.Values, c clientCreds) (*tokenAnswer, error) {
	if err := checkTokenEndpoint(what, endpoint); err != nil {
		return nil, err
	}
	user, pass, err := c.authenticate(form)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if c.method == authMethodBasic {
		req.SetBasicAuth(user, pass)
	}
	resp, err := t.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	var out tokenAnswer
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxTokenAnswer+1))
	jerr := json.Unmarshal(body, &out)
	switch {
	case rerr != nil:
		return nil, fmt.Errorf("%s: HTTP %d, reading the answer: %w", what, resp.StatusCode, rerr)
	case len(body) > maxTokenAnswer:
		return nil, fmt.Errorf("%s: HTTP %d, an answer over %d bytes", what, resp.StatusCode, maxTokenAnswer)
	case resp.StatusCode >= 500:
		return nil, fmt.Errorf("%s: the server failed (HTTP %d)%s", what, resp.StatusCode, oauthError(out, jerr))
	case jerr != nil:
		return nil, fmt.Errorf("%s: HTTP %d, an answer that is not JSON", what, resp.StatusCode)
	case resp.StatusCode != http.StatusOK || out.Error != "":
		return nil, fmt.Errorf("%s refused: HTTP %d%s", what, resp.StatusCode, oauthError(out, nil))
	case out.AccessToken == "":
		return nil, fmt.Errorf("%s: the answer has no access_token", what)
	case len(out.AccessToken) > maxAccessToken || safetext.Line(out.AccessToken) != out.AccessToken || strings.ContainsAny(out.AccessToken, " \t"):
		return nil, fmt.Errorf("%s: the access_token is not a usable token (too long, or with spaces or control characters)", what)
	}
	return &out, nil
}

// oauthError is an error answer's code and description, bounded and on
// one line, or "".
func oauthError(a tokenAnswer, jerr error) string {
	if jerr != nil || a.Error == "" {
		return ""
	}
	s := ": " + safetext.Bound(safetext.Line(a.Error), 100)
	if a.ErrorDesc != "" {
		s += " (" + safetext.Bound(safetext.Line(a.ErrorDesc), 300) + ")"
	}
	return s
}

// bearer turns an access token answer into a Token: only Bearer tokens
// are used, and a lifetime must not be negative.
func bearer(what string, a *tokenAnswer) (*Token, error) {
	if !strings.EqualFold(a.TokenType, "bearer") {
		if a.TokenType == "" {
			return nil, fmt.Errorf("%s: the answer has no token_type (want Bearer)", what)
		}
		return nil, fmt.Errorf("%s: token_type %q is not supported (want Bearer)", what, safetext.Bound(safetext.Line(a.TokenType), 40))
	}
	tok := &Token{AccessToken: a.AccessToken, RefreshToken: a.RefreshToken, Scope: a.Scope}
	var secs float64
	switch v := a.ExpiresIn.(type) {
	case nil:
	case float64:
		secs = v
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: expires_in %q is not a number", what, safetext.Bound(safetext.Line(v), 40))
		}
		secs = f
	default:
		return nil, fmt.Errorf("%s: expires_in is not a number", what)
	}
	switch {
	case secs < 0:
		return nil, fmt.Errorf("%s: the token expired before it arrived (expires_in %v)", what, secs)
	case secs > 0:
		tok.Expiry = time.Now().Add(time.Duration(min(secs, 1e9)) * time.Second)
	}
	return tok, nil
}

// token calls the authorization server's token endpoint as the client
// (authorization code, refresh) and returns the Bearer token.
func (t *oauthTransport) token(ctx context.Context, st *storedAuth, as *asMetadata, form url.Values) (*Token, error) {
	c, err := t.creds(st, as)
	if err != nil {
		return nil, err
	}
	a, err := t.postToken(ctx, "token request", as.TokenEndpoint, form, c)
	if err != nil {
		return nil, err
	}
	return bearer("token request", a)
}

// machineGrant stores a token obtained without the user.
func (t *oauthTransport) machineGrant(st *storedAuth, as *asMetadata, tok *Token, scope string) error {
	if tok.Scope == "" {
		tok.Scope = scope
	}
	st.ClientID, st.ClientSecret, st.AuthMethod, st.Issuer = t.cfg.ClientID, "", "", as.Issuer
	st.Token, st.PendingScope = *tok, ""
	return t.save(st)
}

// supportsGrant reports whether as lists grant (or lists none).
func supportsGrant(as *asMetadata, grant string) bool {
	return len(as.GrantTypesSupported) == 0 || slices.Contains(as.GrantTypesSupported, grant)
}

// clientCredentials obtains a token with the client credentials grant.
func (t *oauthTransport) clientCredentials(ctx context.Context, st *storedAuth, as *asMetadata, prm *resourceMetadata, scope string) error {
	if !supportsGrant(as, GrantClientCredentials) {
		return fmt.Errorf("the authorization server does not offer the client_credentials grant (it offers %s)", strings.Join(as.GrantTypesSupported, ", "))
	}
	st.ClientID = t.cfg.ClientID
	c, err := t.creds(st, as)
	if err != nil {
		return err
	}
	form := url.Values{"grant_type": {GrantClientCredentials}, "resource": {t.resource(prm)}}
	if scope != "" {
		form.Set("scope", scope)
	}
	a, err := t.postToken(ctx, "client credentials token request", as.TokenEndpoint, form, c)
	if err != nil {
		return err
	}
	tok, err := bearer("client credentials token request", a)
	if err != nil {
		return err
	}
	return t.machineGrant(st, as, tok, scope)
}

// crossAppAccess obtains a token with an identity assertion grant from the
// enterprise identity provider.
func (t *oauthTransport) crossAppAccess(ctx context.Context, st *storedAuth, as *asMetadata, prm *resourceMetadata, scope string) error {
	if !supportsGrant(as, grantTypeJWTBearer) {
		return fmt.Errorf("the authorization server does not offer the JWT bearer grant cross-app access needs (it offers %s)", strings.Join(as.GrantTypesSupported, ", "))
	}
	idp := t.cfg.IdP
	if idp == nil {
		return errors.New(`oauth.grant "cross_app_access" needs oauth.idp`)
	}
	idToken, err := t.idToken(idp)
	if err != nil {
		return err
	}
	endpoint := t.path(idp.TokenEndpoint)
	if endpoint == "" {
		m, err := t.idpMetadata(ctx, t.path(idp.Issuer))
		if err != nil {
			return err
		}
		endpoint = m.TokenEndpoint
	}
	idpSecret, err := t.secretFrom("oauth.idp.clientSecretEnv", idp.ClientSecretEnv)
	if err != nil {
		return err
	}
	idpCreds := clientCreds{id: idp.ClientID, secret: idpSecret, method: authMethodNone}
	if idpSecret != "" {
		idpCreds.method = authMethodBasic
	}
	audience := as.Issuer
	if audience == "" {
		audience = as.TokenEndpoint
	}
	form := url.Values{
		"grant_type":           {grantTypeTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {audience},
		"resource":             {t.resource(prm)},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
	}
	if scope != "" {
		form.Set("scope", scope)
	}
	const exchange = "token exchange at the identity provider"
	a, err := t.postToken(ctx, exchange, endpoint, form, idpCreds)
	if err != nil {
		return err
	}
	if a.IssuedTokenType != tokenTypeIDJAG {
		return fmt.Errorf("%s: issued_token_type %q, want %s", exchange, safetext.Bound(safetext.Line(a.IssuedTokenType), 80), tokenTypeIDJAG)
	}

	st.ClientID = t.cfg.ClientID
	c, err := t.creds(st, as)
	if err != nil {
		return err
	}
	form = url.Values{"grant_type": {grantTypeJWTBearer}, "assertion": {a.AccessToken}, "resource": {t.resource(prm)}}
	if scope != "" {
		form.Set("scope", scope)
	}
	const grant = "JWT bearer grant at the authorization server"
	b, err := t.postToken(ctx, grant, as.TokenEndpoint, form, c)
	if err != nil {
		return err
	}
	tok, err := bearer(grant, b)
	if err != nil {
		return err
	}
	return t.machineGrant(st, as, tok, scope)
}

// idToken reads the user's ID token from the configured variable or file.
func (t *oauthTransport) idToken(idp *IdPConfig) (string, error) {
	if idp.IDTokenEnv != "" {
		v, err := t.secretFrom("oauth.idp.idTokenEnv", idp.IDTokenEnv)
		if err != nil {
			return "", fmt.Errorf("%w: sign in to your identity provider and set it to your ID token", err)
		}
		return v, nil
	}
	p := t.path(idp.IDTokenFile)
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("oauth.idp.idTokenFile: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIDTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("oauth.idp.idTokenFile: %w", err)
	}
	s := strings.TrimSpace(string(b))
	switch {
	case len(b) > maxIDTokenFile:
		return "", fmt.Errorf("oauth.idp.idTokenFile %s is too large for a token", p)
	case s == "":
		return "", fmt.Errorf("oauth.idp.idTokenFile %s is empty: sign in to your identity provider first", p)
	}
	return s, nil
}

// idpMetadata discovers the identity provider's endpoints from its issuer
// (OpenID Connect discovery, then RFC 8414).
func (t *oauthTransport) idpMetadata(ctx context.Context, issuer string) (*asMetadata, error) {
	iu, err := url.Parse(issuer)
	if err != nil || iu.Host == "" {
		return nil, fmt.Errorf("oauth.idp.issuer %q is not a valid address", safetext.Bound(safetext.Line(issuer), 200))
	}
	base := strings.TrimSuffix(issuer, "/")
	origin := iu.Scheme + "://" + iu.Host
	p := strings.TrimSuffix(iu.Path, "/")
	for _, u := range []string{base + "/.well-known/openid-configuration", origin + "/.well-known/oauth-authorization-server" + p} {
		var m asMetadata
		if t.getJSON(ctx, u, &m) == nil && m.TokenEndpoint != "" {
			return &m, nil
		}
	}
	return nil, fmt.Errorf("no token endpoint found for the identity provider %s (set oauth.idp.tokenEndpoint)", safetext.Bound(safetext.Line(issuer), 200))
}
