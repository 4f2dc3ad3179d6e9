package agent

import (
	"context"
	"testing"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/workspace"
)

// sessionSetup is a Setup whose model client is built from config, so the
// model name reaches the scripted server as a real request would.
func sessionSetup(t *testing.T, srv *llmtest.Server, pricing *config.Pricing) Setup {
	t.Helper()
	cfg := config.Defaults()
	cfg.Model.BaseURL, cfg.Model.Name, cfg.Model.Pricing = srv.URL(), "configured-model", pricing
	return Setup{Config: cfg, View: workspace.New(workspace.Options{Folders: []string{t.TempDir()}}), TranscriptDir: NoTranscript}
}

// Every model call reports its usage as an event: the endpoint's figures
// with cached tokens, or a local count marked estimated when the endpoint
// sends none or sends nonsense; costs follow model.pricing and are never
// negative; the run and the session carry the totals.
func TestUsageEventsAndCost(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(
		llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "list_dir", Args: `{}`}).CachedUsage(2000, 1500, 100),
		llmtest.ToolCalls(llmtest.Call{ID: "c2", Name: "list_dir", Args: `{"path":"."}`}).NoUsage(),
		llmtest.ToolCalls(llmtest.Call{ID: "c3", Name: "list_dir", Args: `{"path":"./"}`}).CachedUsage(-5, 0, 10),
		llmtest.Text("done").CachedUsage(1<<31-1, 0, 7),
	))
	pricing := &config.Pricing{InputPerMTok: 2, OutputPerMTok: 8, CachedInputPerMTok: 0.5}
	s := NewSession("")
	var events []Event
	run, err := s.Prepare(context.Background(), sessionSetup(t, srv, pricing), RunRequest{Prompt: "look", OnEvent: func(e Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	out := run.Execute(context.Background())
	if out.Status != StatusFinished {
		t.Fatalf("run: %v %v", out.Status, out.Err)
	}
	var usage []Event
	for _, e := range events {
		if e.Kind == EventUsage {
			usage = append(usage, e)
		}
	}
	if len(usage) != 4 {
		t.Fatalf("%d usage events for 4 model calls", len(usage))
	}
	first := usage[0]
	if first.Turn != 1 || first.Usage.PromptTokens != 2000 || first.Usage.CachedTokens != 1500 || first.Usage.CompletionTokens != 100 || first.Estimated {
		t.Fatalf("first call: %+v", first)
	}
	// 500 × $2 + 1500 × $0.5 + 100 × $8, per million.
	if first.CostUSD == nil || *first.CostUSD != (500*2+1500*0.5+100*8)/1e6 {
		t.Fatalf("first call cost %v", first.CostUSD)
	}
	for i, e := range usage[1:] {
		if !e.Estimated || e.Usage.PromptTokens <= 0 || e.Usage.PromptTokens > 100000 || e.Usage.CachedTokens != 0 {
			t.Errorf("call %d (no usage, negative, huge): %+v, want a local estimate", i+2, e)
		}
		if e.CostUSD == nil || *e.CostUSD < 0 {
			t.Errorf("call %d cost %v", i+2, e.CostUSD)
		}
	}
	var sum int
	for _, e := range usage {
		sum += e.Usage.PromptTokens
	}
	last := events[len(events)-1]
	if last.Kind != EventFinished || last.Usage.PromptTokens != sum || out.Usage.PromptTokens != sum || out.Usage.CachedTokens != 1500 || last.CostUSD == nil || out.CostUSD == nil || *out.CostUSD != *last.CostUSD {
		t.Fatalf("totals: finished %+v outcome %+v (sum of calls %d)", last, out.Usage, sum)
	}
	info := s.Info()
	if info.Usage.PromptTokens != sum || info.CostUSD == nil || *info.CostUSD != *out.CostUSD {
		t.Fatalf("session totals %+v", info)
	}
}

// A run can pick its model; the session's follow-ups keep it, and a later
// choice replaces it. Without pricing there is no cost, anywhere.
func TestModelChoiceKeptBySession(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("ok")))
	s := NewSession("")
	for i, tc := range []struct{ ask, want string }{
		{"", "configured-model"}, {"picked-model", "picked-model"}, {"", "picked-model"}, {"other", "other"},
	} {
		run, err := s.Prepare(context.Background(), sessionSetup(t, srv, nil), RunRequest{Prompt: "hi", Model: tc.ask})
		if err != nil {
			t.Fatal(err)
		}
		out := run.Execute(context.Background())
		reqs := srv.Requests()
		if got := reqs[len(reqs)-1].Model; got != tc.want || out.Model != tc.want {
			t.Fatalf("run %d asked %q: request model %q, outcome %q, want %q", i, tc.ask, got, out.Model, tc.want)
		}
		if out.CostUSD != nil {
			t.Fatalf("a cost without pricing: %v", *out.CostUSD)
		}
	}
	if s.Info().Model != "other" {
		t.Fatalf("session model %q", s.Info().Model)
	}
}

func TestPricingCost(t *testing.T) {
	var p *config.Pricing
	if p.Cost(1, 0, 1) != nil {
		t.Fatal("nil pricing priced")
	}
	for _, bad := range []config.Pricing{{InputPerMTok: -1}, {OutputPerMTok: -2}, {CachedInputPerMTok: -1}} {
		if bad.Cost(10, 0, 10) != nil {
			t.Fatalf("negative pricing %+v gave a cost", bad)
		}
	}
	q := &config.Pricing{InputPerMTok: 3, OutputPerMTok: 15}
	if c := q.Cost(1_000_000, 400_000, 0); c == nil || *c != 3 {
		t.Fatalf("cached tokens without a cached price cost the input price: %v", c)
	}
	if q.Cost(-1, 0, 0) != nil || q.Cost(1, 5, 0) == nil {
		t.Fatal("negative counts must not price; cached beyond prompt is clamped")
	}
}
