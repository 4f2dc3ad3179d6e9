package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/tools"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// toolsArray is the "tools" array of an OpenAI chat completions request.
func toolsArray(ts []tools.Tool) []byte {
	type fn struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type def struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	defs := make([]def, len(ts))
	for i, t := range ts {
		defs[i] = def{"function", fn{t.Name(), t.Description(), t.Schema()}}
	}
	b, _ := json.Marshal(defs)
	return b
}

// TestDeferredLoadingRequestSize measures what deferred loading saves with
// 50+ real MCP tools (server-everything plus 40 generated tools of typical
// size): bytes of the request's tools array and o200k_base tokens, for all
// schemas, for the first turn (tool_search only) and after one search.
//
//	go test ./tools/mcp -run TestDeferredLoadingRequestSize -v
func TestDeferredLoadingRequestSize(t *testing.T) {
	entry := npmPackage(t, "server-everything")
	reg := tools.NewRegistry()
	m := startManager(t, Options{Registry: reg, Servers: map[string]ServerConfig{
		"everything": {Command: "node", Args: []string{entry}},
		"tracker":    helperConfig(t, "basic", map[string]string{"AGENTLS_MCP_GEN_TOOLS": "40"}),
	}})
	if err := m.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	all := reg.List()
	if len(all) < 50 {
		t.Fatalf("only %d tools; status %+v", len(all), m.Status())
	}
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	count := func(s string) int { return len(enc.Encode(s, nil, nil)) }

	full := toolsArray(all)
	// A 128k window with 2% for tool definitions: the 50+ schemas do not fit.
	o := tools.NewOffer(reg, 128_000, 0.02, count)
	first := o.Tools()
	if len(first) != 1 || first[0].Name() != tools.ToolSearchName {
		t.Fatalf("first turn offers %d tools", len(first))
	}
	turn1 := toolsArray(first)
	res, err := first[0].Call(context.Background(), nil, json.RawMessage(`{"query":"create an issue in the tracker"}`))
	if err != nil || res.IsError {
		t.Fatalf("tool_search: %+v %v", res, err)
	}
	t.Logf("search result:\n%s", res.Text)
	turn2 := toolsArray(o.Tools())

	fullTok, t1Tok, t2Tok := count(string(full)), count(string(turn1)), count(string(turn2))
	t.Logf("%d MCP tools: all schemas %d bytes / %d tokens; deferred first turn %d bytes / %d tokens (%.1f%%); after one search (%d loaded) %d bytes / %d tokens (%.1f%%)",
		len(all), len(full), fullTok, len(turn1), t1Tok, 100*float64(t1Tok)/float64(fullTok),
		len(o.Active()), len(turn2), t2Tok, 100*float64(t2Tok)/float64(fullTok))
	if float64(t1Tok) > 0.2*float64(fullTok) || float64(t2Tok) > 0.2*float64(fullTok) {
		t.Errorf("deferred loading costs more than 20%% of all schemas")
	}

	// The same with the built-in tools, which are always sent.
	builtins := tools.Builtins(tools.Policy{})
	for _, b := range builtins {
		reg.Add(b)
	}
	withAll := toolsArray(reg.List())
	o = tools.NewOffer(reg, 128_000, 0.02, count)
	withDeferred := toolsArray(o.Tools())
	t.Logf("with the %d built-ins: all %d bytes / %d tokens; deferred %d bytes / %d tokens (%.1f%%)",
		len(builtins), len(withAll), count(string(withAll)), len(withDeferred), count(string(withDeferred)),
		100*float64(count(string(withDeferred)))/float64(count(string(withAll))))
}

// BenchmarkStartStdioServer measures connecting one stdio server: spawn,
// initialize (no 5 s server/discover probe) and tools/list until ready.
// Close is not timed.
func BenchmarkStartStdioServer(b *testing.B) {
	cfg := helperConfig(b, "basic", nil)
	benchmarkStart(b, cfg)
}

// BenchmarkStartEverythingServer is the same against the Node reference
// server (node start-up dominates).
func BenchmarkStartEverythingServer(b *testing.B) {
	entry := npmPackage(b, "server-everything")
	benchmarkStart(b, ServerConfig{Command: "node", Args: []string{entry}})
}

func benchmarkStart(b *testing.B, cfg ServerConfig) {
	for b.Loop() {
		m := NewManager(Options{Servers: map[string]ServerConfig{"s": cfg}})
		m.Start(context.Background())
		if err := m.WaitReady(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if st := m.Status()[0]; st.State != StateReady {
			b.Fatalf("%+v", st)
		}
		_ = m.Close()
		b.StartTimer()
	}
}
