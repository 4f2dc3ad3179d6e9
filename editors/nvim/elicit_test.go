package nvim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// elicitSchema is the form the MCP server asks for in TestElicitForm: every
// kind of field the plugin renders.
const elicitSchema = `{"type":"object","properties":{
 "age":{"type":"integer","title":"Age","minimum":0,"maximum":150},
 "code":{"type":"string","title":"Code","pattern":"^[A-Z]{3}$"},
 "color":{"type":"string","title":"Colour","enum":["red","green","blue"],"enumNames":["Red","Green","Blue"]},
 "name":{"type":"string","title":"Your name","description":"as on your badge","minLength":2},
 "nick":{"type":"string","default":"anon"},
 "ratio":{"type":"number","maximum":1,"default":0.5},
 "subscribe":{"type":"boolean","title":"Subscribe","default":true},
 "tags":{"type":"array","title":"Tags","items":{"anyOf":[{"const":"a","title":"alpha"},{"const":"b","title":"beta"},{"const":"c","title":"gamma"}]}}},
 "required":["age","code","color","name"]}`

// elicitRun is one run's record from tests/elicit.lua.
type elicitRun struct {
	Status  string `json:"status"`
	Result  string `json:"result"`
	Error   any    `json:"error"`
	Unused  int    `json:"unused"`
	Prompts []struct {
		Kind    string   `json:"kind"`
		Prompt  string   `json:"prompt"`
		Items   []string `json:"items"`
		Default string   `json:"default"`
	} `json:"prompts"`
}

// TestElicitForm: an MCP tool's elicitation/create reaches Neovim whole as
// agentls/elicit (the plugin declares experimental.agentls.elicitationForms)
// and is asked field by field; the MCP server gets exactly the answers
// typed and chosen, with bad input asked again and the schema's default for
// a field left empty. "Decline" and Esc reach it as decline and cancel. The
// coroutine path of Neovim 0.9+ answers after the prompts, and the
// synchronous path of 0.7/0.8 cancels (with a warning) when vim.ui answers
// later.
func TestElicitForm(t *testing.T) {
	t.Parallel()
	mcpSrv := mcptest.NewServer(mcptest.Options{})
	mcptest.AddClientRequestTools(mcpSrv)
	url := mcptest.StartHTTP(t, mcpSrv)
	model := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("ask") {
			args, _ := json.Marshal(map[string]string{"message": "Please fill in the form.", "schema": elicitSchema})
			return llmtest.ToolCalls(llmtest.Call{ID: "ask", Name: "mcp__helper__ask", Args: string(args)})
		}
		res, _ := req.ToolResult("ask")
		return llmtest.Text(res)
	})
	env := modelEnv(model)
	env["AGENTLS_TEST_MCP"] = url
	r := runScript(t, "elicit.lua", options{env: env})

	var fill, decline, cancel elicitRun
	r.fact(t, "fill", &fill)
	r.fact(t, "decline", &decline)
	r.fact(t, "cancel", &cancel)
	for name, run := range map[string]elicitRun{"fill": fill, "decline": decline, "cancel": cancel} {
		if run.Status != "finished" || run.Unused != 0 {
			t.Errorf("%s: status %q (error %v), %d scripted answers unused; prompts %+v", name, run.Status, run.Error, run.Unused, run.Prompts)
		}
	}
	want := `accept {"age":42,"code":"XYZ","color":"green","name":"Ada","nick":"anon","ratio":0.5,"subscribe":false,"tags":["a","c"]}`
	if fill.Result != want {
		t.Errorf("the MCP server got %s\nwant %s", fill.Result, want)
	}
	if decline.Result != "decline null" {
		t.Errorf("after Decline the MCP server got %s", decline.Result)
	}
	if cancel.Result != "cancel null" {
		t.Errorf("after Esc the MCP server got %s", cancel.Result)
	}

	// What the user saw.
	var shown []string
	for _, p := range fill.Prompts {
		line := p.Kind + ": " + p.Prompt
		if p.Kind == "select" {
			line += " " + strings.Join(p.Items, "|")
		} else {
			line += "default=" + p.Default
		}
		shown = append(shown, line)
	}
	all := strings.Join(shown, "\n")
	for _, s := range []string{
		`select: MCP server "helper" asks: Please fill in the form. Answer (8 fields)|Decline`,
		"input: Age * [enter a whole number]: default=abc",
		"input: Age * [must be at most 150]: default=200",
		"input: Code * [must match ^[A-Z]{3}$]: default=abc",
		"select: Colour * Red|Green|Blue\n",
		"input: Your name (as on your badge) * [required]: default=",
		"input: Your name (as on your badge) * [at least 2 characters]: default=A",
		"input: nick: default=anon",
		"input: ratio: default=0.5",
		"select: Subscribe Yes (default)|No\n",
		"select: Tags [ ] alpha|[ ] beta|[ ] gamma|Done\n",
		"select: Tags [x] alpha|[ ] beta|[x] gamma|Done",
	} {
		if !strings.Contains(all, s) {
			t.Errorf("no prompt %q; prompts:\n%s", s, all)
		}
	}

	var async map[string]any
	r.fact(t, "async", &async)
	if b, _ := json.Marshal(async); string(b) != `{"action":"accept","content":{"a":"b","b":7}}` {
		t.Errorf("coroutine path answered %s", b)
	}
	var sync struct {
		Answer  map[string]any `json:"answer"`
		Prompts int            `json:"prompts"`
		Warned  string         `json:"warned"`
	}
	r.fact(t, "sync_async_ui", &sync)
	if sync.Answer["action"] != "cancel" || sync.Prompts != 1 || !strings.Contains(sync.Warned, "cannot wait") {
		t.Errorf("synchronous path with a late vim.ui: %+v", sync)
	}
}
