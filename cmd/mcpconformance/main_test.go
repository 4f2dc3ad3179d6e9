package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The suite's credentials land where a user puts them: secrets only in
// agentls's environment (named by the configuration), the private key in
// an owner-only file, the grant chosen by what the scenario hands over;
// the suite's own context never reaches agentls.
func TestNewUserPutsCredentialsWhereAUserWould(t *testing.T) {
	t.Setenv("AGENTLS_BIN", "/bin/true")
	t.Setenv("MCP_CONFORMANCE_CONTEXT", `{"client_secret":"leak"}`)
	t.Setenv("DISPLAY", ":0")
	for _, c := range []struct {
		scenario string
		sc       scenarioContext
		grant    string
		env      string
	}{
		{"auth/client-credentials-jwt", scenarioContext{ClientID: "c", PrivateKeyPEM: "-----BEGIN PRIVATE KEY-----\n", SigningAlgorithm: "ES256"}, "client_credentials", ""},
		{"auth/client-credentials-basic", scenarioContext{ClientID: "c", ClientSecret: "s3"}, "client_credentials", secretVar + "=s3"},
		{"auth/cross-app-access-complete-flow", scenarioContext{ClientID: "c", ClientSecret: "s3", IdPIDToken: "idt", IdPTokenEndpoint: "http://127.0.0.1:1/token", IdPClientID: "i"}, "cross_app_access", idTokenVar + "=idt"},
		{"auth/pre-registration", scenarioContext{ClientID: "c", ClientSecret: "s3"}, "", secretVar + "=s3"},
	} {
		tmp := t.TempDir()
		u, err := newUser(tmp, "http://127.0.0.1:1/mcp", c.scenario, c.sc)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(tmp, "config", "agentls", "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			MCPServers map[string]struct {
				URL   string         `json:"url"`
				OAuth map[string]any `json:"oauth"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		o := cfg.MCPServers[serverName].OAuth
		if g, _ := o["grant"].(string); g != c.grant {
			t.Errorf("%s: grant %q, want %q", c.scenario, g, c.grant)
		}
		if strings.Contains(string(raw), "s3") || strings.Contains(string(raw), "idt\"") {
			t.Errorf("%s: a secret is in the config file:\n%s", c.scenario, raw)
		}
		if c.env != "" && !slices.Contains(u.env, c.env) {
			t.Errorf("%s: environment lacks %s", c.scenario, c.env)
		}
		for _, kv := range u.env {
			if strings.HasPrefix(kv, "MCP_CONFORMANCE_CONTEXT=") || strings.HasPrefix(kv, "DISPLAY=") {
				t.Errorf("%s: agentls gets %s", c.scenario, kv)
			}
		}
		if kf, _ := o["privateKeyFile"].(string); kf != "" {
			if fi, err := os.Stat(kf); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: key file %v %v", c.scenario, fi, err)
			}
		}
	}
}

func TestSampleArgs(t *testing.T) {
	got := string(sampleArgs(json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer"},"s":{"type":"string","enum":["x","y"]},"f":{"type":"boolean"}}}`)))
	if got != `{"a":1,"b":2,"f":true,"s":"x"}` {
		t.Errorf("sampleArgs = %s", got)
	}
}
