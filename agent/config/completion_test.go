package config

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCompletionConfig(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-model", "FIM_KEY": "sk-fim"}
	load := func(settings string) (Config, error) {
		cfg, _, err := Load(LoadOptions{UserFile: "", Init: json.RawMessage(settings), Env: func(k string) string { return env[k] }})
		return cfg, err
	}
	cfg, err := load(`{"model":{"baseURL":"http://m/v1","name":"gpt-4.1"}}`)
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.CompletionLLM()
	if !cfg.CompletionOn() || l.BaseURL != "http://m/v1" || l.Model != "gpt-4.1" || l.APIKey != "sk-model" || l.MaxAttempts != 1 ||
		cfg.Completion.FIM != FIMAuto || cfg.Completion.MaxTokens != 128 || cfg.Completion.DebounceMs != 75 || !cfg.CompletionInList() {
		t.Fatalf("defaults from the model: %+v %+v", l, cfg.Completion)
	}
	cfg, _ = load(`{"model":{"baseURL":"http://m/v1","name":"gpt-4.1"},"completion":{"baseURL":"http://localhost:11434/v1","name":"qwen2.5-coder:1.5b","apiKeyEnv":"FIM_KEY"}}`)
	if l := cfg.CompletionLLM(); l.BaseURL != "http://localhost:11434/v1" || l.Model != "qwen2.5-coder:1.5b" || l.APIKey != "sk-fim" {
		t.Fatalf("own model: %+v", l)
	}
	cfg, err = load(`{"model":{"baseURL":"http://m/v1","name":"m"},"completion":{"fim":"magic","maxTokens":0,"debounceMs":-1}}`)
	if err == nil || !strings.Contains(err.Error(), "completion.fim") || cfg.Completion.FIM != FIMAuto || cfg.Completion.MaxTokens != 128 || cfg.Completion.DebounceMs != 75 {
		t.Fatalf("invalid values: %v %+v", err, cfg.Completion)
	}
	if cfg, _ = load(`{"model":{"baseURL":"http://m/v1","name":"m"},"completion":{"enabled":false}}`); cfg.CompletionOn() {
		t.Fatal("enabled:false still on")
	}
	if cfg, _ = load(`{}`); cfg.CompletionOn() {
		t.Fatal("on without a model")
	}
}
