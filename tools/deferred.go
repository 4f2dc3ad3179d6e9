package tools

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/agentls/agentls/internal/text"
)

// DeferPrefix marks tools that may be held back from requests until the
// model finds them with tool_search: the MCP tools. Built-ins are always
// offered, except those wrapped with HeldBack.
const DeferPrefix = "mcp__"

// HeldBack wraps t so that it is not sent to the model until tool_search
// loads it, or the model calls it by its exact name (Loadable), for the rest
// of the run: for tools rarely needed whose definitions would otherwise
// cost every request (built-in tools plus system prompt have a budget,
// docs/performance.md).
func HeldBack(t Tool) Tool { return heldBack{t} }

type heldBack struct{ Tool }

// Unwrap returns the tool HeldBack wrapped.
func (h heldBack) Unwrap() Tool { return h.Tool }

func isHeldBack(t Tool) bool { _, ok := t.(heldBack); return ok }

// deferrable reports tools tool_search can load: held-back ones and MCP
// tools.
func deferrable(t Tool) bool { return isHeldBack(t) || strings.HasPrefix(t.Name(), DeferPrefix) }

// ToolSearchName is the name of the tool that finds and loads deferred tools.
const ToolSearchName = "tool_search"

//go:embed tool_search.md
var toolSearchDescription string

// Offer decides which tools are sent to the model each turn. Every tool
// definition costs tokens on every request (one agent measured 16-19k
// tokens of built-ins alone) and selection gets worse past ~20 tools. When
// all tools fit in share×window tokens they are all offered; otherwise only
// the built-ins, a tool_search tool and the tools tool_search has loaded
// ("activated") so far. An Offer belongs to one agent run (activations are
// that conversation's) and is safe for concurrent use.
type Offer struct {
	reg    *Registry
	budget int
	count  func(string) int
	search Tool
	keep   func(Tool) bool // nil: every tool of reg (Derive)

	mu     sync.Mutex
	active []string       // activation order, so requests stay byte-stable
	cost   map[string]int // tool text → tokens
}

// NewOffer returns an Offer over reg for a model with windowTokens of
// context, offering everything while the tool definitions cost at most
// share of it. count measures tokens; nil estimates 4 bytes per token.
func NewOffer(reg *Registry, windowTokens int, share float64, count func(string) int) *Offer {
	if count == nil {
		count = func(s string) int { return (len(s) + 3) / 4 }
	}
	o := &Offer{reg: reg, budget: int(float64(windowTokens) * share), count: count, cost: map[string]int{}}
	o.search = New(ToolSearchName, toolSearchDescription, true, o.runSearch)
	return o
}

// Derive returns an Offer over the same registry, budget and token
// count that sees only the tools keep accepts (held-back ones are passed
// wrapped), with activations of its own: a sub-agent's offer, whose
// tool_search loads tools into its own conversation only. keep is asked
// at every turn, so tools that come and go (MCP, editor) are followed.
func (o *Offer) Derive(keep func(Tool) bool) *Offer {
	d := &Offer{reg: o.reg, budget: o.budget, count: o.count, cost: map[string]int{}, keep: keep}
	d.search = New(ToolSearchName, toolSearchDescription, true, d.runSearch)
	return d
}

// list is the registry's tools this offer may give, sorted by name.
func (o *Offer) list() []Tool {
	all := o.reg.List()
	if o.keep == nil {
		return all
	}
	out := all[:0]
	for _, t := range all {
		if o.keep(t) {
			out = append(out, t)
		}
	}
	return out
}

// get is the registry's tool called name when this offer may give it.
func (o *Offer) get(name string) (Tool, bool) {
	t, ok := o.reg.Get(name)
	if !ok || (o.keep != nil && !o.keep(t)) {
		return nil, false
	}
	return t, true
}

// Loadable returns the tool called name when tool_search could load it
// for this offer (held back, or a deferred MCP tool). A model that calls
// such a tool by its exact name knows it already: the caller runs the call
// at once and Activates the tool, rather than spend a turn saying it was
// not loaded.
func (o *Offer) Loadable(name string) (Tool, bool) {
	t, ok := o.get(name)
	if !ok || !deferrable(t) {
		return nil, false
	}
	return t, true
}

// Tools returns the tools to send this turn: all of them when they fit the
// budget, else the built-ins (sorted), tool_search, then the activated tools
// in activation order.
//
// Held-back tools (HeldBack) are never part of "all": they are offered
// only once activated, and while any is not, tool_search is offered too.
func (o *Offer) Tools() []Tool {
	var all []Tool
	held := false
	o.mu.Lock()
	active := append([]string(nil), o.active...)
	o.mu.Unlock()
	for _, t := range o.list() {
		if isHeldBack(t) {
			held = held || !slices.Contains(active, t.Name())
			continue
		}
		all = append(all, t)
	}
	if o.fits(all) {
		out := all
		if held && !hasTool(all, ToolSearchName) {
			out = append(out, o.search)
		}
		for _, n := range active {
			if t, ok := o.get(n); ok && isHeldBack(t) {
				out = append(out, t)
			}
		}
		return out
	}
	out := make([]Tool, 0, 16)
	for _, t := range all {
		if !strings.HasPrefix(t.Name(), DeferPrefix) {
			out = append(out, t)
		}
	}
	if !hasTool(out, ToolSearchName) {
		out = append(out, o.search)
	}
	for _, n := range active {
		if t, ok := o.get(n); ok {
			out = append(out, t)
		}
	}
	return out
}

// fits reports whether the definitions of ts fit the budget.
func (o *Offer) fits(ts []Tool) bool {
	// A token is at least one byte, so definitions whose bytes fit the
	// budget fit without counting: the common case never loads the
	// tokenizer.
	bytes := 0
	for _, t := range ts {
		bytes += len(toolText(t))
	}
	if bytes <= o.budget {
		return true
	}
	total := 0
	for _, t := range ts {
		total += o.toolCost(t)
	}
	return total <= o.budget
}

func hasTool(ts []Tool, name string) bool {
	for _, t := range ts {
		if t.Name() == name {
			return true
		}
	}
	return false
}

// Activate makes the named tools part of every following turn's offer.
func (o *Offer) Activate(names ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range names {
		found := false
		for _, a := range o.active {
			found = found || a == n
		}
		if !found {
			o.active = append(o.active, n)
		}
	}
}

// Active lists the activated tool names in activation order.
func (o *Offer) Active() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.active...)
}

// Cost is the token cost of the definitions of ts, as Tools measures it.
func (o *Offer) Cost(ts []Tool) int {
	n := 0
	for _, t := range ts {
		n += o.toolCost(t)
	}
	return n
}

// toolText is what a tool's definition costs in a request.
func toolText(t Tool) string {
	return t.Name() + "\n" + t.Description() + "\n" + string(t.Schema())
}

// toolCost measures what a tool adds to a request: name, description and
// parameter schema (cached: tools rarely change between turns).
func (o *Offer) toolCost(t Tool) int {
	text := toolText(t)
	o.mu.Lock()
	n, ok := o.cost[text]
	o.mu.Unlock()
	if ok {
		return n
	}
	n = o.count(text)
	o.mu.Lock()
	if len(o.cost) > 4096 { // tools churned a lot: start over rather than grow
		o.cost = map[string]int{}
	}
	o.cost[text] = n
	o.mu.Unlock()
	return n
}

type searchParams struct {
	Query string `json:"query" jsonschema:"keywords or tool name"`
}

// maxSearchResults bounds what one search activates, so a vague query does
// not undo the savings.
const maxSearchResults = 5

// runSearch ranks the deferrable tools against the query, activates the
// best matches and lists them for the model.
func (o *Offer) runSearch(ctx context.Context, _ *Env, p searchParams) (Result, error) {
	query := strings.TrimSpace(p.Query)
	if query == "" {
		return Errorf("query is empty: describe the capability you need in a few words"), nil
	}
	var deferred []Tool
	for _, t := range o.list() {
		if deferrable(t) {
			deferred = append(deferred, t)
		}
	}
	if len(deferred) == 0 {
		return Result{Text: "There are no additional tools to load: every tool is already offered."}, nil
	}
	hits := rankTools(deferred, query)
	if len(hits) > maxSearchResults {
		hits = hits[:maxSearchResults]
	}
	if len(hits) == 0 {
		names := make([]string, 0, len(deferred))
		for _, t := range deferred {
			names = append(names, t.Name())
		}
		if len(names) > 60 {
			names = append(names[:60], fmt.Sprintf("… and %d more", len(names)-60))
		}
		return Result{Text: fmt.Sprintf("No tool matched %q. Tools that can be loaded: %s", query, strings.Join(names, ", ")),
			Summary: "no tool matched " + query}, nil
	}
	var b strings.Builder
	names := make([]string, 0, len(hits))
	fmt.Fprintf(&b, "Loaded %d tool(s); call them directly from now on:\n", len(hits))
	for _, t := range hits {
		names = append(names, t.Name())
		fmt.Fprintf(&b, "\n- %s: %s", t.Name(), text.Clip(t.Description(), 400))
	}
	o.Activate(names...)
	return Result{Text: b.String(), Summary: "loaded " + strings.Join(names, ", ")}, nil
}

// rankTools scores tools by keyword overlap with the query: an exact name
// wins outright, a term found among the name's words counts 3, inside the
// name 2, in the description 1. Ties keep name order; zero scores drop out.
func rankTools(ts []Tool, query string) []Tool {
	q := strings.ToLower(strings.TrimSpace(query))
	terms := words(q)
	type scored struct {
		t     Tool
		score int
	}
	var out []scored
	for _, t := range ts {
		name := strings.ToLower(t.Name())
		if name == q {
			return []Tool{t}
		}
		nameWords := map[string]bool{}
		for _, w := range words(name) {
			nameWords[w], nameWords[stem(w)] = true, true
		}
		desc := map[string]bool{}
		for _, w := range words(strings.ToLower(t.Description())) {
			desc[w], desc[stem(w)] = true, true
		}
		score := 0
		for _, term := range terms {
			switch {
			case nameWords[term] || nameWords[stem(term)]:
				score += 3
			case len(term) >= 3 && strings.Contains(name, term):
				score += 2
			}
			if desc[term] || desc[stem(term)] {
				score++
			}
		}
		if score > 0 {
			out = append(out, scored{t, score})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	res := make([]Tool, len(out))
	for i, s := range out {
		res[i] = s.t
	}
	return res
}

// words splits s into lower-case alphanumeric words, dropping the "mcp"
// prefix, stop words and words too short to mean anything.
func words(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := f[:0]
	for _, w := range f {
		if len(w) >= 2 && !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

var stopWords = map[string]bool{
	"mcp": true, "a": true, "an": true, "the": true, "to": true, "of": true, "in": true, "on": true,
	"for": true, "and": true, "or": true, "is": true, "it": true, "by": true, "with": true, "from": true,
	"tool": true, "tools": true, "me": true, "my": true, "this": true, "that": true,
}

// stem drops a plural "s" so "files" finds "file".
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") {
		return w[:len(w)-1]
	}
	return w
}
