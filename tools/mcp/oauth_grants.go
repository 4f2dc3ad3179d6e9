package mcp

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

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
// assertions and ID tokens go there. Requests and answers are
// golang.org/x/oauth2's; answers are also checked: JSON, bounded, a usable
// access token of type Bearer, a lifetime that is not negative; an
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

// auth is how x/oauth2 authenticates the client at a token endpoint: the
// secret it sends, in the Basic header (RFC 6749 §2.3.1, both parts
// form-urlencoded first) or the form, never auto-detected (a refused
// secret is not sent a second way), and the form fields it has no style
// for (private_key_jwt's assertion). Without a secret, only client_id is
// sent. what names the request in errors; endpoint is checked first.
func (c clientCreds) auth(what, endpoint string) (secret string, style oauth2.AuthStyle, fields url.Values, err error) {
	if err := checkTokenEndpoint(what, endpoint); err != nil {
		return "", 0, nil, err
	}
	switch c.method {
	case authMethodBasic:
		return c.secret, oauth2.AuthStyleInHeader, nil, nil
	case authMethodPost:
		return c.secret, oauth2.AuthStyleInParams, nil, nil
	case authMethodPrivateKeyJWT:
		a, err := c.assertion()
		if err != nil {
			return "", 0, nil, err
		}
		return "", oauth2.AuthStyleInParams, url.Values{"client_assertion_type": {clientAssertionTypeJWT}, "client_assertion": {a}}, nil
	}
	return "", oauth2.AuthStyleInParams, nil, nil
}

// assertion is the signed client assertion of private_key_jwt (RFC 7523
// §3): issued by and about the client, for the authorization server, valid
// for a few minutes, with a unique id so it cannot be replayed.
func (c clientCreds) assertion() (string, error) {
	now := time.Now()
	claims := jwt.RegisteredClaims{
		Issuer: c.id, Subject: c.id, Audience: jwt.ClaimStrings{c.audience},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(assertionLifetime)),
		ID: rand.Text(),
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

// tokenContext carries the HTTP client x/oauth2 uses for token requests:
// the transport's own (so its proxies, test servers and timeouts apply)
// under answerCheck.
func (t *oauthTransport) tokenContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: answerCheck{t.base}, Timeout: 30 * time.Second})
}

// answerCheck holds a token endpoint's answer to what x/oauth2 does not
// check, or reports without saying which: a bounded size (x/oauth2 cuts
// the answer instead), JSON (whatever its Content-Type says; x/oauth2
// would read a form body), and an access token in a successful answer.
type answerCheck struct{ base http.RoundTripper }

// answerError is an answer refused by answerCheck.
type answerError struct {
	msg string
	err error
}

func (e *answerError) Error() string { return e.msg }
func (e *answerError) Unwrap() error { return e.err }

func (a answerCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Accept", "application/json")
	resp, err := a.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxTokenAnswer+1))
	_ = resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	jerr := json.Unmarshal(body, &out)
	switch code := resp.StatusCode; {
	case rerr != nil:
		return nil, &answerError{fmt.Sprintf("HTTP %d, reading the answer: %v", code, rerr), rerr}
	case len(body) > maxTokenAnswer:
		return nil, &answerError{msg: fmt.Sprintf("HTTP %d, an answer over %d bytes", code, maxTokenAnswer)}
	case code >= 500:
	case jerr != nil:
		return nil, &answerError{msg: fmt.Sprintf("HTTP %d, an answer that is not JSON", code)}
	case code/100 == 2 && out.Error == "" && out.AccessToken == "":
		return nil, &answerError{msg: "the answer has no access_token"}
	}
	resp.Header.Set("Content-Type", "application/json")
	resp.Body = io.NopCloser(bytes.NewReader(wholeExpiry(body)))
	return resp, nil
}

// wholeExpiry rewrites a fractional expires_in ("3600.0", which some
// servers send and x/oauth2 refuses to parse) as whole seconds; any other
// answer is returned as it is.
func wholeExpiry(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	raw, ok := m["expires_in"]
	if !ok || !bytes.ContainsAny(raw, ".eE") {
		return body
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f > 1<<40 {
		return body
	}
	m["expires_in"] = json.RawMessage(strconv.FormatInt(int64(f), 10))
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// tokenRequest asks endpoint for a token with params (grant_type
// included) as client c. It goes through clientcredentials.Config, x/oauth2's
// one token request that takes any parameters (grant_type may be
// replaced): the refresh with RFC 8707's resource (Config.TokenSource's
// refresh cannot carry it), the token exchange and the JWT bearer grant need
// them.
func (t *oauthTransport) tokenRequest(ctx context.Context, what, endpoint string, c clientCreds, params url.Values) (*oauth2.Token, error) {
	secret, style, fields, err := c.auth(what, endpoint)
	if err != nil {
		return nil, err
	}
	maps.Copy(params, fields)
	cc := clientcredentials.Config{ClientID: c.id, ClientSecret: secret, TokenURL: endpoint, AuthStyle: style, EndpointParams: params}
	tok, err := cc.Token(t.tokenContext(ctx))
	return checkToken(what, tok, err)
}

// checkToken reports a failed token request with the server's status,
// error code and description (never with what was sent), and refuses an
// access token that cannot go in a header.
func checkToken(what string, tok *oauth2.Token, err error) (*oauth2.Token, error) {
	var ae *answerError
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &ae):
		return nil, fmt.Errorf("%s: %w", what, ae)
	case errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 500:
		return nil, fmt.Errorf("%s: the server failed (HTTP %d)%s", what, re.Response.StatusCode, oauthError(re.ErrorCode, re.ErrorDescription))
	case errors.As(err, &re) && re.Response != nil:
		return nil, fmt.Errorf("%s refused: HTTP %d%s", what, re.Response.StatusCode, oauthError(re.ErrorCode, re.ErrorDescription))
	case err != nil:
		return nil, fmt.Errorf("%s: %w", what, err)
	case len(tok.AccessToken) > maxAccessToken || safetext.Line(tok.AccessToken) != tok.AccessToken || strings.ContainsAny(tok.AccessToken, " \t"):
		return nil, fmt.Errorf("%s: the access_token is not a usable token (too long, or with spaces or control characters)", what)
	}
	return tok, nil
}

// oauthError is an error answer's code and description, bounded and on
// one line, or "".
func oauthError(code, desc string) string {
	if code == "" {
		return ""
	}
	s := ": " + safetext.Bound(safetext.Line(code), 100)
	if desc != "" {
		s += " (" + safetext.Bound(safetext.Line(desc), 300) + ")"
	}
	return s
}

// extra is the string answer field key ("" when absent or not a string).
func extra(tok *oauth2.Token, key string) string {
	s, _ := tok.Extra(key).(string)
	return s
}

// bearer turns an access token answer into a Token: only Bearer tokens
// are used (x/oauth2 takes a missing token_type for Bearer), and one that
// expired on arrival (a negative lifetime) is refused.
func bearer(what string, a *oauth2.Token) (*Token, error) {
	if !strings.EqualFold(a.TokenType, "bearer") {
		if a.TokenType == "" {
			return nil, fmt.Errorf("%s: the answer has no token_type (want Bearer)", what)
		}
		return nil, fmt.Errorf("%s: token_type %q is not supported (want Bearer)", what, safetext.Bound(safetext.Line(a.TokenType), 40))
	}
	if !a.Expiry.IsZero() && a.Expiry.Before(time.Now()) {
		return nil, fmt.Errorf("%s: the token expired before it arrived (expires_in %v)", what, a.Extra("expires_in"))
	}
	return &Token{AccessToken: a.AccessToken, RefreshToken: a.RefreshToken, Scope: extra(a, "scope"), Expiry: a.Expiry}, nil
}

// token calls the authorization server's token endpoint as the client
// (refresh) and returns the Bearer token.
func (t *oauthTransport) token(ctx context.Context, st *storedAuth, as *asMetadata, params url.Values) (*Token, error) {
	c, err := t.creds(st, as)
	if err != nil {
		return nil, err
	}
	a, err := t.tokenRequest(ctx, "token request", as.TokenEndpoint, c, params)
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
	params := url.Values{"resource": {t.resource(prm)}} // grant_type client_credentials is clientcredentials.Config's own
	if scope != "" {
		params.Set("scope", scope)
	}
	a, err := t.tokenRequest(ctx, "client credentials token request", as.TokenEndpoint, c, params)
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
	a, err := t.tokenRequest(ctx, exchange, endpoint, idpCreds, form)
	if err != nil {
		return err
	}
	if it := extra(a, "issued_token_type"); it != tokenTypeIDJAG {
		return fmt.Errorf("%s: issued_token_type %q, want %s", exchange, safetext.Bound(safetext.Line(it), 80), tokenTypeIDJAG)
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
	b, err := t.tokenRequest(ctx, grant, as.TokenEndpoint, c, form)
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
