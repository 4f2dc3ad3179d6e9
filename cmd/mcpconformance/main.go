// Command mcpconformance is the client the official MCP conformance suite
// (@modelcontextprotocol/conformance, client scenarios) drives. It is a
// user of the real agentls command line, nothing more: it writes the
// scenario's server into a fresh user configuration (with the credentials
// the suite hands over put where a user would put them: secrets in
// environment variables, the private key in an owner-only file), then runs
//
//	agentls mcp list --json                  (what tools are there)
//	agentls mcp login conformance            (only if list says to log in)
//	agentls mcp call conformance TOOL ARGS   (each tool, on a terminal)
//
// on a pseudo-terminal, playing the person at it: it follows every
// sign-in address agentls prints (as a browser would: the authorization
// server redirects to agentls's loopback listener) and answers elicitation
// forms by accepting and pressing Enter at each field (the defaults).
//
// The suite passes the server URL as the last argument, the scenario in
// MCP_CONFORMANCE_SCENARIO and its data (pre-registered client credentials,
// a private key, an identity provider's ID token) as JSON in
// MCP_CONFORMANCE_CONTEXT. The agentls binary is $AGENTLS_BIN, else the
// agentls next to this program, else the one on PATH. .ci/run runs it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// clientMetadataURL is the client ID metadata document URL the suite's
// auth/basic-cimd scenario expects.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// serverName is the scenario server's name in the configuration.
const serverName = "conformance"

// Environment variables the configuration names for the suite's secrets.
const (
	secretVar  = "MCP_CONFORMANCE_CLIENT_SECRET"
	idTokenVar = "MCP_CONFORMANCE_ID_TOKEN"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// scenarioContext is MCP_CONFORMANCE_CONTEXT.
type scenarioContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPIssuer        string `json:"idp_issuer"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

func run(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: mcpconformance SERVER_URL")
		return 2
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var sc scenarioContext
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		if err := json.Unmarshal([]byte(c), &sc); err != nil {
			fmt.Fprintf(stderr, "mcpconformance: MCP_CONFORMANCE_CONTEXT: %v\n", err)
			return 2
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 28*time.Second) // the suite's default is 30 s
	defer cancel()
	tmp, err := os.MkdirTemp("", "mcpconformance-")
	if err != nil {
		fmt.Fprintf(stderr, "mcpconformance: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	u, err := newUser(tmp, args[len(args)-1], scenario, sc)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconformance: %v\n", err)
		return 1
	}
	if err := u.session(ctx, stderr); err != nil {
		fmt.Fprintf(stderr, "mcpconformance %s: %v\n", scenario, err)
		return 1
	}
	return 0
}

// user is the person at the terminal: their configuration, environment
// and the agentls they run.
type user struct {
	agentls string
	dir     string   // the workspace (empty: servers come from the user's file)
	env     []string // agentls's environment
}

// newUser writes the configuration for the scenario's server under tmp.
func newUser(tmp, serverURL, scenario string, sc scenarioContext) (*user, error) {
	bin, err := findAgentls()
	if err != nil {
		return nil, err
	}
	u := &user{agentls: bin, dir: filepath.Join(tmp, "workspace")}
	cfgHome, stateHome := filepath.Join(tmp, "config"), filepath.Join(tmp, "state")
	for _, d := range []string{u.dir, filepath.Join(cfgHome, "agentls"), stateHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	oauth := map[string]any{"clientMetadataUrl": clientMetadataURL}
	extra := map[string]string{}
	if sc.ClientID != "" {
		oauth["clientId"] = sc.ClientID
	}
	if sc.ClientSecret != "" {
		oauth["clientSecretEnv"] = secretVar
		extra[secretVar] = sc.ClientSecret
	}
	switch {
	case strings.HasPrefix(scenario, "auth/client-credentials-"):
		oauth["grant"] = "client_credentials"
		if sc.PrivateKeyPEM != "" {
			keyFile := filepath.Join(tmp, "client-key.pem")
			if err := os.WriteFile(keyFile, []byte(sc.PrivateKeyPEM), 0o600); err != nil {
				return nil, err
			}
			oauth["privateKeyFile"] = keyFile
			if sc.SigningAlgorithm != "" {
				oauth["signingAlgorithm"] = sc.SigningAlgorithm
			}
		}
	case sc.IdPIDToken != "":
		oauth["grant"] = "cross_app_access"
		oauth["idp"] = map[string]any{"issuer": sc.IdPIssuer, "tokenEndpoint": sc.IdPTokenEndpoint, "clientId": sc.IdPClientID, "idTokenEnv": idTokenVar}
		extra[idTokenVar] = sc.IdPIDToken
	}
	cfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		serverName: map[string]any{"type": "http", "url": serverURL, "oauth": oauth},
	}}, "", "  ")
	if err := os.WriteFile(filepath.Join(cfgHome, "agentls", "config.json"), cfg, 0o600); err != nil {
		return nil, err
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "XDG_CONFIG_HOME", "XDG_STATE_HOME", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER", secretVar, idTokenVar,
			"MCP_CONFORMANCE_CONTEXT": // what the suite hands over reaches agentls only as configured
			continue
		}
		u.env = append(u.env, kv)
	}
	u.env = append(u.env, "XDG_CONFIG_HOME="+cfgHome, "XDG_STATE_HOME="+stateHome)
	for k, v := range extra {
		u.env = append(u.env, k+"="+v)
	}
	return u, nil
}

// findAgentls locates the agentls binary.
func findAgentls() (string, error) {
	if p := os.Getenv("AGENTLS_BIN"); p != "" {
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "agentls")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath("agentls")
	if err != nil {
		return "", errors.New("no agentls binary: set AGENTLS_BIN or put agentls next to mcpconformance")
	}
	return p, nil
}

// listed is `agentls mcp list --json`.
type listed struct {
	Servers []struct {
		Name  string `json:"name"`
		State string `json:"state"`
		Error string `json:"error"`
		Tools []struct {
			Tool        string          `json:"tool"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	} `json:"servers"`
}

// session is what the user does: list the tools (signing in first when
// list says so) and call each.
func (u *user) session(ctx context.Context, log io.Writer) error {
	l, err := u.list(ctx, log)
	if err != nil {
		return err
	}
	if s := l.Servers[0]; s.State != "ready" {
		if !strings.Contains(s.Error, "agentls mcp login") {
			return fmt.Errorf("server %s: %s", s.State, s.Error)
		}
		if _, err := u.terminal(ctx, log, "mcp", "login", serverName); err != nil {
			return fmt.Errorf("agentls mcp login: %w", err)
		}
		if l, err = u.list(ctx, log); err != nil {
			return err
		}
		if s := l.Servers[0]; s.State != "ready" {
			return fmt.Errorf("server %s after login: %s", s.State, s.Error)
		}
	}
	tools := l.Servers[0].Tools
	sort.Slice(tools, func(i, j int) bool { return tools[i].Tool < tools[j].Tool })
	var failed []string
	for _, t := range tools {
		out, err := u.terminal(ctx, log, "mcp", "call", serverName, t.Tool, string(sampleArgs(t.InputSchema)))
		fmt.Fprintf(log, "%s: %s\n", t.Tool, strings.TrimSpace(out))
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", t.Tool, err))
		}
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// list runs `agentls mcp list --json` (no terminal: it never signs in).
func (u *user) list(ctx context.Context, log io.Writer) (*listed, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, u.agentls, "mcp", "list", "--json", "--dir", u.dir, "--timeout", "20s")
	cmd.Env, cmd.Stdout, cmd.Stderr = u.env, &out, log
	err := cmd.Run()
	var l listed
	if jerr := json.Unmarshal(out.Bytes(), &l); jerr != nil || len(l.Servers) != 1 {
		return nil, fmt.Errorf("agentls mcp list --json: %v (exit: %v)\n%s", jerr, err, out.String())
	}
	return &l, nil
}

// terminal runs agentls with ARGS on a pseudo-terminal it answers as the
// user (see answer) and returns its standard output.
func (u *user) terminal(ctx context.Context, log io.Writer, args ...string) (string, error) {
	args = append(args, "--dir", u.dir, "--timeout", "20s")
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, u.agentls, args...)
	cmd.Env, cmd.Stdout = u.env, &out
	err := onTerminal(ctx, cmd, log)
	return out.String(), err
}

// sampleArgs fills a tool's properties with values of their type, as a
// model would.
func sampleArgs(schema json.RawMessage) json.RawMessage {
	var sc struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &sc)
	args := map[string]any{}
	names := make([]string, 0, len(sc.Properties))
	for n := range sc.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		p := sc.Properties[n]
		switch {
		case len(p.Enum) > 0:
			args[n] = p.Enum[0]
		case p.Type == "number" || p.Type == "integer":
			args[n] = i + 1
		case p.Type == "boolean":
			args[n] = true
		case p.Type == "string":
			args[n] = "test"
		}
	}
	b, _ := json.Marshal(args)
	return b
}
