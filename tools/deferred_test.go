package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// fakeMCPTool stands in for an MCP tool: only its definition matters here.
type fakeMCPTool struct{ name, desc string }

func (f fakeMCPTool) Name() string        { return f.name }
func (f fakeMCPTool) Description() string { return f.desc }
func (f fakeMCPTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
}
func (f fakeMCPTool) ReadOnly() bool { return true }
func (f fakeMCPTool) Call(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{Text: f.name}, nil
}

type noParams struct{}

func builtin(name string) Tool {
	return New(name, "built-in "+name, true, func(context.Context, *Env, noParams) (Result, error) { return Result{}, nil })
}

func offerRegistry() *Registry {
	return NewRegistry(
		builtin("read_file"), builtin("edit_file"),
		fakeMCPTool{"mcp__weather__get_forecast", "Get the weather forecast for a city."},
		fakeMCPTool{"mcp__github__create_issue", "Create an issue in a GitHub repository."},
		fakeMCPTool{"mcp__github__list_pull_requests", "List pull requests of a repository."},
		fakeMCPTool{"mcp__db__query", "Run a read-only SQL query against the Postgres database."},
	)
}

func names(ts []Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name()
	}
	return out
}

func search(t *testing.T, o *Offer, query string) Result {
	t.Helper()
	var st Tool
	for _, tool := range o.Tools() {
		if tool.Name() == ToolSearchName {
			st = tool
		}
	}
	if st == nil {
		t.Fatalf("tool_search not offered: %v", names(o.Tools()))
	}
	args, _ := json.Marshal(map[string]string{"query": query})
	res, err := st.Call(context.Background(), nil, args)
	if err != nil {
		t.Fatalf("tool_search: %v", err)
	}
	return res
}

func TestOfferAllToolsWhenTheyFit(t *testing.T) {
	reg := offerRegistry()
	counted := 0
	o := NewOffer(reg, 1_000_000, 0.1, func(s string) int { counted++; return len(s) })
	got := names(o.Tools())
	if want := names(reg.List()); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want every tool %v", got, want)
	}
	for _, n := range got {
		if n == ToolSearchName {
			t.Fatal("tool_search offered although nothing is deferred")
		}
	}
	if counted != 0 {
		t.Fatalf("counted %d definitions whose bytes fit the budget (the tokenizer would load for nothing)", counted)
	}
}

func TestOfferDefersMCPToolsOverBudget(t *testing.T) {
	reg := offerRegistry()
	o := NewOffer(reg, 100, 0.1, nil) // 10 tokens: far too small
	if got, want := strings.Join(names(o.Tools()), ","), "edit_file,read_file,tool_search"; got != want {
		t.Fatalf("first turn offers %s, want %s", got, want)
	}

	res := search(t, o, "create a github issue")
	if res.IsError || !strings.Contains(res.Text, "mcp__github__create_issue: Create an issue in a GitHub repository.") {
		t.Fatalf("search result: %+v", res)
	}
	if strings.Contains(res.Text, "weather") {
		t.Fatalf("unrelated tool listed: %s", res.Text)
	}
	got := names(o.Tools())
	if got[len(got)-2] != "mcp__github__create_issue" {
		t.Fatalf("best match not activated first: %v", got)
	}
	// Activation is sticky and order-stable: a second search appends.
	search(t, o, "weather forecast")
	got = names(o.Tools())
	if got[len(got)-1] != "mcp__weather__get_forecast" || got[3] != "mcp__github__create_issue" {
		t.Fatalf("after second search: %v", got)
	}
}

func TestOfferExactNameAndNoMatch(t *testing.T) {
	reg := offerRegistry()
	o := NewOffer(reg, 100, 0.1, nil)
	res := search(t, o, "mcp__db__query")
	if got := o.Active(); len(got) != 1 || got[0] != "mcp__db__query" {
		t.Fatalf("exact name activated %v (%s)", got, res.Text)
	}
	res = search(t, o, "kubernetes")
	if res.IsError || !strings.Contains(res.Text, `No tool matched "kubernetes"`) || !strings.Contains(res.Text, "mcp__weather__get_forecast") {
		t.Fatalf("no-match result should list what can be loaded: %+v", res)
	}
	if len(o.Active()) != 1 {
		t.Fatalf("a failed search activated tools: %v", o.Active())
	}
	res = search(t, o, "   ")
	if !res.IsError {
		t.Fatalf("empty query accepted: %+v", res)
	}
}

func TestOfferRanksNameOverDescription(t *testing.T) {
	ts := []Tool{
		fakeMCPTool{"mcp__a__notes", "Stores things; can also query."},
		fakeMCPTool{"mcp__b__query", "Runs statements."},
		fakeMCPTool{"mcp__c__files", "Lists files."},
	}
	got := names(rankTools(ts, "query"))
	if strings.Join(got, ",") != "mcp__b__query,mcp__a__notes" {
		t.Fatalf("ranking %v", got)
	}
	if got := names(rankTools(ts, "file")); len(got) != 1 || got[0] != "mcp__c__files" {
		t.Fatalf("plural not matched: %v", got)
	}
}

func TestOfferDropsRemovedToolsAndCapsResults(t *testing.T) {
	reg := NewRegistry(builtin("read_file"))
	for i := range 20 {
		reg.Add(fakeMCPTool{fmt.Sprintf("mcp__gen__tool_%02d", i), "Generated widget tool."})
	}
	o := NewOffer(reg, 100, 0.1, nil)
	res := search(t, o, "widget")
	if n := len(o.Active()); n != maxSearchResults {
		t.Fatalf("activated %d tools, want at most %d: %s", n, maxSearchResults, res.Text)
	}
	reg.Remove("mcp__gen__tool_00") // its server went away
	for _, n := range names(o.Tools()) {
		if n == "mcp__gen__tool_00" {
			t.Fatal("removed tool still offered")
		}
	}
	reg.Add(fakeMCPTool{"mcp__gen__tool_00", "Generated widget tool."}) // reconnected
	if got := names(o.Tools()); got[2] != "mcp__gen__tool_00" {
		t.Fatalf("re-added tool not offered again: %v", got)
	}
}

func TestOfferCostUsesCounter(t *testing.T) {
	reg := offerRegistry()
	calls := 0
	o := NewOffer(reg, 1000, 0.5, func(s string) int { calls++; return 100 })
	// 6 tools × 100 = 600 > 500: deferred.
	if got := len(o.Tools()); got != 3 {
		t.Fatalf("offered %d tools, want 3", got)
	}
	if o.Cost(reg.List()) != 600 {
		t.Fatalf("cost %d", o.Cost(reg.List()))
	}
	before := calls
	o.Tools()
	if calls != before {
		t.Fatalf("costs not cached: %d more counts", calls-before)
	}
}

func TestOfferConcurrent(t *testing.T) {
	reg := offerRegistry()
	o := NewOffer(reg, 100, 0.1, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				switch (i + j) % 3 {
				case 0:
					o.Tools()
				case 1:
					search(t, o, "github")
				default:
					reg.Add(fakeMCPTool{fmt.Sprintf("mcp__x__t%d", j), "github helper"})
				}
			}
		}()
	}
	wg.Wait()
	if len(o.Active()) == 0 {
		t.Fatal("nothing activated")
	}
}

// TestOfferHeldBackTools: held-back tools are offered only once
// tool_search loaded them, whatever the budget; tool_search is offered
// while any is not loaded.
func TestOfferHeldBackTools(t *testing.T) {
	reg := NewRegistry(builtin("read_file"), builtin("grep"),
		HeldBack(New("definition", "Find where a symbol is defined.", true, func(context.Context, *Env, noParams) (Result, error) { return Result{Text: "def"}, nil })),
		HeldBack(New("references", "Find every reference to a symbol.", true, func(context.Context, *Env, noParams) (Result, error) { return Result{}, nil })),
	)
	o := NewOffer(reg, 1_000_000, 0.1, nil)
	if got := strings.Join(names(o.Tools()), ","); got != "grep,read_file,tool_search" {
		t.Fatalf("first turn offers %s", got)
	}
	res := search(t, o, "definition references")
	if res.IsError || !strings.Contains(res.Text, "definition: Find where a symbol is defined.") || !strings.Contains(res.Text, "references:") {
		t.Fatalf("search: %+v", res)
	}
	if got := strings.Join(names(o.Tools()), ","); got != "grep,read_file,references,definition" { // best match first
		t.Fatalf("after loading: %s", got)
	}
	for _, tl := range o.Tools() {
		if tl.Name() == "definition" {
			if r, err := tl.Call(context.Background(), nil, nil); err != nil || r.Text != "def" {
				t.Fatalf("held-back tool call: %+v %v", r, err)
			}
		}
	}
}

// TestOfferDerive: a derived offer sees only the tools its filter keeps,
// held-back ones included (a tool the filter refuses is neither offered
// nor found by its tool_search), and its activations are its own.
func TestOfferDerive(t *testing.T) {
	noop := func(context.Context, *Env, noParams) (Result, error) { return Result{}, nil }
	reg := NewRegistry(builtin("read_file"), New("edit_file", "Edit a file.", false, noop),
		HeldBack(New("definition", "Find where a symbol is defined.", true, noop)),
		HeldBack(New("rename", "Rename a symbol everywhere.", false, noop)),
	)
	parent := NewOffer(reg, 1_000_000, 0.1, nil)
	sub := parent.Derive(func(t Tool) bool { return t.ReadOnly() })
	if got := strings.Join(names(sub.Tools()), ","); got != "read_file,tool_search" {
		t.Fatalf("derived offer: %s", got)
	}
	res := search(t, sub, "definition rename symbol")
	if res.IsError || !strings.Contains(res.Text, "- definition:") || strings.Contains(res.Text, "rename") {
		t.Fatalf("derived search: %s", res.Text)
	}
	if got := strings.Join(names(sub.Tools()), ","); got != "read_file,definition" {
		t.Fatalf("derived offer after loading: %s", got)
	}
	if got := strings.Join(names(parent.Tools()), ","); got != "edit_file,read_file,tool_search" {
		t.Fatalf("the parent's offer changed: %s", got)
	}
	// Nothing is held back from it any more, so tool_search is gone; asked
	// anyway, it never loads what the filter refuses.
	res, err := sub.search.Call(context.Background(), nil, json.RawMessage(`{"query":"rename"}`))
	if err != nil || strings.Contains(res.Text, "Loaded") {
		t.Fatalf("rename found by name: %s %v", res.Text, err)
	}
}

// TestOfferLoadable: what a call by exact name may load is what
// tool_search could: held-back tools and deferred MCP tools, within a
// derived offer's filter; never an ordinary tool, an unknown name, or
// (without Activate) a change to the offer.
func TestOfferLoadable(t *testing.T) {
	noop := func(context.Context, *Env, noParams) (Result, error) { return Result{}, nil }
	reg := NewRegistry(builtin("read_file"),
		HeldBack(New("lookup", "Look a key up.", true, noop)),
		HeldBack(New("stamp", "Stamp a key.", false, noop)),
		New("mcp__kv__get", "Get a key.", true, noop),
	)
	o := NewOffer(reg, 1_000_000, 0.1, nil)
	for name, want := range map[string]bool{"lookup": true, "stamp": true, "mcp__kv__get": true, "read_file": false, "nothing": false} {
		if tl, ok := o.Loadable(name); ok != want || (ok && tl.Name() != name) {
			t.Errorf("Loadable(%q) = %v, %v", name, tl, ok)
		}
	}
	if len(o.Active()) != 0 {
		t.Fatalf("Loadable activated %v", o.Active())
	}
	sub := o.Derive(func(t Tool) bool { return t.ReadOnly() })
	if _, ok := sub.Loadable("stamp"); ok {
		t.Fatal("a derived offer loads a tool its filter refuses")
	}
	if _, ok := sub.Loadable("lookup"); !ok {
		t.Fatal("a derived offer does not load a held-back tool it keeps")
	}
}
