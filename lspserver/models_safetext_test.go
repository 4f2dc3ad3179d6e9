package lspserver_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// agentls/models leaves out names that would show as something else: a
// bidi override, a C1 control (from the endpoint or model.choices).
func TestModelsLeaveOutUnsafeNames(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("ok")), llmtest.WithModels(
		`{"object":"list","data":[{"id":"gpt-a"},{"id":"evil\u202eledom"},{"id":"c1\u009bx"},{"id":"iso\u2066x"}]}`))
	rs := newRunSession(t, nil, runOpts{noModel: true, settings: map[string]any{
		"model": map[string]any{"baseURL": srv.URL(), "name": "test-model", "choices": []string{"picked", "bad\u200fchoice"}}}})
	var res lspserver.ModelsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodModels, struct{}{}, &res); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Models {
		got = append(got, m.ID)
	}
	if strings.Join(got, ",") != "test-model,picked,gpt-a" {
		t.Fatalf("models = %q", got)
	}
}
