package tools

import (
	"encoding/json"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// maxBuiltinTokens is the budget for every built-in tool definition as the
// model sees it (name, description, parameter schema), run_command
// included: tool definitions are paid on every request.
const maxBuiltinTokens = 1200

// toolTokens counts a tool definition the way it is sent: the name, the
// description and the compact JSON schema.
func toolTokens(tb testing.TB, enc *tiktoken.Tiktoken, t Tool) int {
	if !json.Valid(t.Schema()) {
		tb.Fatalf("%s: schema is not JSON", t.Name())
	}
	return len(enc.Encode(t.Name(), nil, nil)) + len(enc.Encode(t.Description(), nil, nil)) + len(enc.Encode(string(t.Schema()), nil, nil))
}

func encoding(tb testing.TB, name string) *tiktoken.Tiktoken {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	return enc
}

// TestBuiltinTokenBudget keeps the tool definitions small. It prints the
// per-tool figures (go test ./tools -run TokenBudget -v).
func TestBuiltinTokenBudget(t *testing.T) {
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		enc := encoding(t, name)
		total := 0
		for _, tool := range Builtins(Policy{RunCommand: "ask"}) {
			n := toolTokens(t, enc, tool)
			total += n
			t.Logf("%s %-12s %4d tokens", name, tool.Name(), n)
		}
		t.Logf("%s total %d tokens (budget %d)", name, total, maxBuiltinTokens)
		if total > maxBuiltinTokens {
			t.Errorf("%s: built-in tool definitions take %d tokens, budget %d", name, total, maxBuiltinTokens)
		}
	}
}

// BenchmarkBuiltinTokens reports the token total as a metric.
func BenchmarkBuiltinTokens(b *testing.B) {
	enc := encoding(b, "o200k_base")
	total := 0
	for b.Loop() {
		total = 0
		for _, tool := range Builtins(Policy{RunCommand: "ask"}) {
			total += toolTokens(b, enc, tool)
		}
	}
	b.ReportMetric(float64(total), "tokens")
}
