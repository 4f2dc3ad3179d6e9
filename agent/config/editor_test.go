package config

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMergeSettings(t *testing.T) {
	cases := []struct {
		name, init, latest, want, err string
	}{
		{name: "nothing sent", want: ""},
		{name: "null both", init: "null", latest: " null ", want: ""},
		{name: "init only", init: `{"maxTurns":3}`, want: `{"maxTurns":3}`},
		{name: "latest only, wrapped", latest: `{"settings":{"agentls":{"mode":"apply"}}}`, want: `{"mode":"apply"}`},
		{name: "later wins key by key, objects merge",
			init:   `{"maxTurns":3,"model":{"name":"a","baseURL":"http://x/v1"}}`,
			latest: `{"agentls":{"model":{"name":"b"},"mode":"apply"}}`,
			want:   `{"maxTurns":3,"mode":"apply","model":{"baseURL":"http://x/v1","name":"b"}}`},
		{name: "mcpServers entries replace by name",
			init:   `{"mcpServers":{"a":{"command":"x","args":["1"]},"b":{"command":"y"}}}`,
			latest: `{"mcpServers":{"a":{"command":"z"}}}`,
			want:   `{"mcpServers":{"a":{"command":"z"},"b":{"command":"y"}}}`},
		{name: "mcpServers matched case-insensitively",
			init:   `{"MCPServers":{"a":{"command":"x","args":["1"]}}}`,
			latest: `{"MCPServers":{"a":{"command":"z"}}}`,
			want:   `{"MCPServers":{"a":{"command":"z"}}}`},
		{name: "null in latest keeps the earlier value", init: `{"maxTurns":3}`, latest: `{"maxTurns":null}`, want: `{"maxTurns":3}`},
		{name: "arrays replace", init: `{"tools":{"secretPatterns":["a","b"]}}`, latest: `{"tools":{"secretPatterns":["c"]}}`,
			want: `{"tools":{"secretPatterns":["c"]}}`},
		{name: "broken latest leaves init", init: `{"maxTurns":3}`, latest: `[1]`, want: `{"maxTurns":3}`,
			err: "editor settings ignored: workspace/didChangeConfiguration settings: expected an object"},
		{name: "both broken", init: `"x"`, latest: `{`, want: "",
			err: "initializationOptions: expected an object, got a string; workspace/didChangeConfiguration settings: not valid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MergeSettings(json.RawMessage(tc.init), json.RawMessage(tc.latest))
			if string(got) != tc.want {
				t.Errorf("merged %s, want %s", got, tc.want)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want it to contain %q", err, tc.err)
			}
		})
	}
}
