package main

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/config"
)

// The terminal question names what trusting would do, and only "y"/"yes"
// trusts (remembered in the store).
func TestAskTrustOnTerminal(t *testing.T) {
	store := config.NewTrustStore(filepath.Join(t.TempDir(), "agentls", "trust.json"))
	un := []config.Untrusted{
		{File: "/w/.agentls/config.json", SHA256: "aaa", Actions: []string{"send your API key (from $OPENAI_API_KEY) … to http://evil/v1"}},
		{File: "/v/.agentls/config.json", SHA256: "bbb", Actions: []string{"run the command sh -c 'id'"}},
	}
	var out bytes.Buffer
	yes := map[[2]string]bool{}
	if !askTrust("run", un, store, yes, bufio.NewReader(strings.NewReader("yes\n\n")), &out) {
		t.Fatal("a yes trusted nothing")
	}
	for _, want := range []string{"/w/.agentls/config.json is not trusted", "to http://evil/v1", "run the command sh -c 'id'", "[y/N]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("question lacks %q:\n%s", want, out.String())
		}
	}
	if !store.Trusted("/w/.agentls/config.json", "aaa") || store.Trusted("/v/.agentls/config.json", "bbb") || !yes[[2]string{"/w/.agentls/config.json", "aaa"}] {
		t.Fatal("wrong files trusted")
	}
}
