package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// What the user set comes first, then what the endpoint lists; blanks,
// repeats and names that would show as another (a bidi override, a
// control character) are left out; limit keeps the first ones.
func TestModelChoices(t *testing.T) {
	first := []string{"chosen", " cfg-model ", "", "chosen", "evil\u202egpt"}
	listed := []string{"a-listed", "cfg-model", "line\nbreak", "z-listed"}
	if got := strings.Join(ModelChoices(first, listed, 0), ","); got != "chosen,cfg-model,a-listed,z-listed" {
		t.Fatalf("ModelChoices = %s", got)
	}
	if got := strings.Join(ModelChoices(first, listed, 3), ","); got != "chosen,cfg-model,a-listed" {
		t.Fatalf("ModelChoices limited to 3 = %s", got)
	}
	if got := ModelChoices(nil, nil, 0); got == nil || len(got) != 0 {
		t.Fatalf("ModelChoices of nothing = %#v, want an empty list", got)
	}
}

func modelsConfig(url string) config.Config {
	var cfg config.Config
	cfg.Model.BaseURL, cfg.Model.Name = url, "test-model"
	return cfg
}

// EndpointModels asks the endpoint each time unless Remember is set; then
// an endpoint's answer holds for the owner's lifetime.
func TestEndpointModelsRemember(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("ok")), llmtest.WithModels(
		`{"object":"list","data":[{"id":"m2","object":"model"},{"id":"m1","object":"model"}]}`))
	cfg := modelsConfig(srv.URL())
	var fresh EndpointModels
	kept := EndpointModels{Remember: true}
	for _, e := range []*EndpointModels{&fresh, &kept} {
		ids, err := e.List(context.Background(), cfg)
		if err != nil || strings.Join(ids, ",") != "m1,m2" {
			t.Fatalf("List = %v, %v", ids, err)
		}
	}
	srv.Close()
	if ids, err := kept.List(context.Background(), cfg); err != nil || strings.Join(ids, ",") != "m1,m2" {
		t.Fatalf("remembered List = %v, %v", ids, err)
	}
	if ids, err := fresh.List(context.Background(), cfg); err == nil || len(ids) != 0 {
		t.Fatalf("List of a closed endpoint = %v, %v; want an error", ids, err)
	}
}

// No endpoint is asked without a usable model, nor for a replayed or
// recorded one (a listing must not end up in a recording); the error
// says why.
func TestEndpointModelsNotAsked(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("ok")), llmtest.WithModels(`{"object":"list","data":[{"id":"m1","object":"model"}]}`))
	replay, record := modelsConfig(srv.URL()), modelsConfig(srv.URL())
	replay.Model.Replay, record.Model.Record = "/nonexistent/cassette.json", t.TempDir()+"/rec.json"
	for name, tc := range map[string]struct {
		cfg  config.Config
		want string
	}{
		"no model": {config.Config{}, "base URL"},
		"replay":   {replay, "model.replay"},
		"record":   {record, "model.record"},
	} {
		ids, err := (&EndpointModels{}).List(context.Background(), tc.cfg)
		if len(ids) != 0 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: List = %v, %v; want no models and an error naming %s", name, ids, err, tc.want)
		}
	}
}
