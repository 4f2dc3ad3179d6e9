package mcp

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/statedir"
)

// Token is an OAuth access token as stored.
type Token struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Scope        string    `json:"scope,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// storedAuth is everything kept for one server: its URL (a token is for
// one URL only), the client registration and the token.
type storedAuth struct {
	ServerURL    string `json:"server_url"`
	Issuer       string `json:"issuer,omitempty"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
	// Grant the token came from ("" is the authorization code, as in files
	// written before other grants existed): a token of another grant is not
	// used after the configuration changes.
	Grant string `json:"grant,omitempty"`
	Token Token  `json:"token"`
	// PendingScope is what a server asked for in a 403 insufficient_scope
	// that could not be authorized without the user (agentls mcp call off a
	// terminal): the next sign-in asks for it too.
	PendingScope string `json:"pending_scope,omitempty"`
}

func (s *storedAuth) valid(serverURL string) bool { return s.ServerURL == serverURL }

// grant is the stored token's grant.
func (s *storedAuth) grant() string {
	if s.Grant == "" {
		return GrantAuthorizationCode
	}
	return s.Grant
}

// TokenStore keeps OAuth state per configured server name.
type TokenStore interface {
	Load(server string) (*storedAuth, error)
	Save(server string, a *storedAuth) error
	Delete(server string) error
}

// FileTokenStore keeps each server's tokens in DIR/<server>.json, owner-only
// (0600 in a 0700 directory). Nothing of it is ever logged.
type FileTokenStore struct {
	Dir string
	mu  sync.Mutex
}

func (f *FileTokenStore) path(server string) string {
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, server)
	if name == "" || name == "." || name == ".." {
		name = "_" + name
	}
	return filepath.Join(f.Dir, name+".json")
}

// Load returns the stored state, or nil when there is none.
func (f *FileTokenStore) Load(server string) (*storedAuth, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := os.ReadFile(f.path(server))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var a storedAuth
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("token file of %q is damaged: %w", server, err)
	}
	return &a, nil
}

// Save writes the state atomically with owner-only permissions.
func (f *FileTokenStore) Save(server string, a *storedAuth) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	return statedir.WriteFile(f.path(server), b)
}

// Delete forgets the server's tokens and registration.
func (f *FileTokenStore) Delete(server string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := os.Remove(f.path(server))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// memoryStore is the store when none is configured.
type memoryStore struct {
	mu sync.Mutex
	m  map[string]storedAuth
}

func (s *memoryStore) Load(server string) (*storedAuth, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.m[server]
	if !ok {
		return nil, nil
	}
	return &a, nil
}

func (s *memoryStore) Save(server string, a *storedAuth) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]storedAuth{}
	}
	s.m[server] = *a
	return nil
}

func (s *memoryStore) Delete(server string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, server)
	return nil
}

// loopback receives the authorization redirect on 127.0.0.1 at a random
// port: it accepts one request carrying the expected state and then stops
// listening.
type loopback struct {
	redirectURI string
	srv         *http.Server
	result      chan loopbackResult
	once        sync.Once
}

type loopbackResult struct {
	code string
	err  error
}

func listenLoopback(state string) (*loopback, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback listener for the authorization redirect: %w", err)
	}
	lb := &loopback{redirectURI: "http://" + l.Addr().String() + "/callback", result: make(chan loopbackResult, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			http.Error(w, "agentls: unexpected state; this page was not opened by agentls", http.StatusBadRequest)
			return // not ours: keep waiting for the real redirect
		}
		res := loopbackResult{code: q.Get("code")}
		if e := q.Get("error"); e != "" {
			res = loopbackResult{err: fmt.Errorf("authorization refused: %s %s", e, q.Get("error_description"))}
		} else if res.code == "" {
			res = loopbackResult{err: errors.New("authorization redirect without a code")}
		}
		lb.once.Do(func() {
			lb.result <- res
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			msg := "agentls is authorized. You can close this page."
			if res.err != nil {
				msg = "agentls was not authorized: " + res.err.Error()
			}
			fmt.Fprintf(w, "<!doctype html><title>agentls</title><p>%s</p>", html.EscapeString(msg))
			go lb.close() // one use
		})
	})
	lb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = lb.srv.Serve(l) }()
	return lb, nil
}

func (lb *loopback) wait(ctx context.Context) (string, error) {
	select {
	case r := <-lb.result:
		return r.code, r.err
	case <-ctx.Done():
		return "", fmt.Errorf("no authorization within the time allowed: %w", ctx.Err())
	}
}

func (lb *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = lb.srv.Shutdown(ctx)
}

// DefaultTokenDir is where OAuth tokens are kept:
// $XDG_STATE_HOME/agentls/mcp-auth, else ~/.local/state/agentls/mcp-auth
// ("" when neither is known). env nil means os.Getenv.
func DefaultTokenDir(env func(string) string) string {
	if d := statedir.Dir(env); d != "" {
		return filepath.Join(d, "mcp-auth")
	}
	return ""
}

// NewTokenStore is the file store in dir, or an in-memory store when dir is
// "" (tokens then last as long as the process).
func NewTokenStore(dir string) TokenStore {
	if dir == "" {
		return &memoryStore{}
	}
	return &FileTokenStore{Dir: dir}
}

// ForgetAccessToken drops the access and refresh tokens stored for server,
// keeping its client registration and any scope a step-up still wants, so
// that the next connection signs in anew ("agentls mcp login": asked for
// by the user, it always signs in, with every scope wanted so far).
func ForgetAccessToken(store TokenStore, server string) error {
	st, err := store.Load(server)
	if err != nil || st == nil {
		return err
	}
	if st.PendingScope == "" && st.Token.Scope != "" {
		st.PendingScope = st.Token.Scope // signing in again keeps the access it had
	}
	st.Token = Token{}
	return store.Save(server, st)
}
