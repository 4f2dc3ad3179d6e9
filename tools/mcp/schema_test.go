package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// TestModelSchemaAdaptations: each adaptation modelSchema documents, and
// that everything else passes through byte for byte.
func TestModelSchemaAdaptations(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"missing", ``, `{"type":"object","properties":{}}`},
		{"null", `null`, `{"type":"object","properties":{}}`},
		{"boolean", `true`, `{"type":"object","properties":{}}`},
		{"invalid", `{"type":`, `{"type":"object","properties":{}}`},
		{"empty object", `{}`, `{"type":"object","properties":{}}`},
		{"no properties", `{"type":"object"}`, `{"properties":{},"type":"object"}`},
		{"no type", `{"properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"untouched", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"required":["a"]},{"not":{"required":["a"]}}],"if":{"required":["a"]},"then":{"x-extra":1}}`,
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"required":["a"]},{"not":{"required":["a"]}}],"if":{"required":["a"]},"then":{"x-extra":1}}`},
		{"top-level $ref inlined",
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"q":{"$ref":"#/$defs/Q"}},"required":["q"],"oneOf":[{"required":["q"]}]},"Q":{"type":"string"}}}`,
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"Args":{"type":"object","properties":{"q":{"$ref":"#/$defs/Q"}},"required":["q"],"oneOf":[{"required":["q"]}]},"Q":{"type":"string"}},"type":"object","properties":{"q":{"$ref":"#/$defs/Q"}},"required":["q"],"oneOf":[{"required":["q"]}]}`},
		{"definitions $ref, root keyword wins",
			`{"description":"root","$ref":"#/definitions/A","definitions":{"A":{"description":"def","type":"object","properties":{}}}}`,
			`{"description":"root","definitions":{"A":{"description":"def","type":"object","properties":{}}},"type":"object","properties":{}}`},
		{"remote $ref left alone",
			`{"$ref":"https://example.com/schema.json"}`,
			`{"type":"object","properties":{},"$ref":"https://example.com/schema.json"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := modelSchema(json.RawMessage(c.in))
			if !json.Valid(got) {
				t.Fatalf("invalid JSON %s", got)
			}
			if string(got) != c.want {
				t.Errorf("modelSchema(%s)\n got %s\nwant %s", c.in, got, c.want)
			}
		})
	}
}

// TestSchemaPassThroughFromServer: a real server's tool whose schema has a
// top-level $ref, oneOf and $schema reaches the registry whole: the $ref
// is inlined (the only adaptation) and every other keyword survives.
func TestSchemaPassThroughFromServer(t *testing.T) {
	srv := mcptest.NewServer(mcptest.Options{})
	mcptest.AddSchemaTool(srv)
	url := mcptest.StartHTTP(t, srv)
	m := startManager(t, Options{Servers: map[string]ServerConfig{"helper": {Type: "http", URL: url}}})
	waitState(t, m, "helper", StateReady)
	tool, ok := m.Registry().Get("mcp__helper__search")
	if !ok {
		t.Fatalf("no search tool; have %v", statusOf(m, "helper").Tools)
	}
	var got map[string]any
	if err := json.Unmarshal(tool.Schema(), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"$schema", "$defs", "oneOf", "properties"} {
		if got[k] == nil {
			t.Errorf("keyword %s lost: %s", k, tool.Schema())
		}
	}
	if got["type"] != "object" || got["$ref"] != nil {
		t.Errorf("top-level $ref not inlined: %s", tool.Schema())
	}
	want := []any{map[string]any{"required": []any{"query"}}, map[string]any{"required": []any{"id"}}}
	if !reflect.DeepEqual(got["oneOf"], want) {
		t.Errorf("oneOf = %v", got["oneOf"])
	}
	if props, _ := got["properties"].(map[string]any); props["query"] == nil || props["id"] == nil {
		t.Errorf("properties = %v", got["properties"])
	}
	if res := call(t, m.Registry(), "mcp__helper__search", `{"query":"gophers"}`); res.Text != "search: gophers" {
		t.Errorf("call: %+v", res)
	}
}

// TestDeferredToolKeepsSchema: when MCP tools are deferred, the tool that
// tool_search loads is offered with the same schema text as up front.
func TestDeferredToolKeepsSchema(t *testing.T) {
	srv := mcptest.NewServer(mcptest.Options{})
	mcptest.AddSchemaTool(srv)
	url := mcptest.StartHTTP(t, srv)
	m := startManager(t, Options{Servers: map[string]ServerConfig{"helper": {Type: "http", URL: url}}})
	waitState(t, m, "helper", StateReady)
	direct, _ := m.Registry().Get("mcp__helper__search")
	offer := tools.NewOffer(m.Registry(), 1000, 0.01, nil)
	var search tools.Tool
	for _, tl := range offer.Tools() {
		if tl.Name() == tools.ToolSearchName {
			search = tl
		}
		if tl.Name() == "mcp__helper__search" {
			t.Fatal("the tools were not deferred")
		}
	}
	if search == nil {
		t.Fatal("no tool_search offered")
	}
	if res, err := search.Call(context.Background(), nil, json.RawMessage(`{"query":"search by query or id"}`)); err != nil || res.IsError {
		t.Fatalf("tool_search: %+v %v", res, err)
	}
	for _, tl := range offer.Tools() {
		if tl.Name() == "mcp__helper__search" {
			if string(tl.Schema()) != string(direct.Schema()) {
				t.Errorf("deferred schema %s\nup-front schema %s", tl.Schema(), direct.Schema())
			}
			return
		}
	}
	t.Error("tool_search did not load mcp__helper__search")
}
