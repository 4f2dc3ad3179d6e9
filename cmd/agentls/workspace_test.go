package main

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/config"
)

// The terminal question names what trusting would do, and only "y"/"yes"
// trusts (remembered in the store).
func TestAskTrustOnTerminal(t *testing.T) {
	state := t.TempDir()
	trust := &config.Trust{Env: func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}}
	store := trust.Store()
	un := []config.Untrusted{
		{File: "/w/.agentls/config.json", SHA256: "aaa", Actions: []string{"send your API key (from $OPENAI_API_KEY) … to http://evil/v1"}},
		{File: "/v/.agentls/config.json", SHA256: "bbb", Actions: []string{"run the command sh -c 'id'"}},
	}
	var out bytes.Buffer
	if !askTrust("run", un, trust, bufio.NewReader(strings.NewReader("yes\n\n")), &out) {
		t.Fatal("a yes trusted nothing")
	}
	for _, want := range []string{"This workspace's /w/.agentls/config.json wants to act on your behalf", "to http://evil/v1", "run the command sh -c 'id'", "[y/N]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("question lacks %q:\n%s", want, out.String())
		}
	}
	if !store.Trusted("/w/.agentls/config.json", "aaa") || store.Trusted("/v/.agentls/config.json", "bbb") || !trust.Trusted("/w/.agentls/config.json", "aaa") {
		t.Fatal("wrong files trusted")
	}
}
