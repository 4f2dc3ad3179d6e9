package tools

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"testing"
)

// TestSchemasAreStrict checks every built-in schema against the rules of
// OpenAI strict function calling.
func TestSchemasAreStrict(t *testing.T) {
	allowed := map[string]bool{"type": true, "description": true, "properties": true, "required": true, "additionalProperties": true, "items": true, "enum": true}
	var check func(tool, where string, s map[string]any, optional bool)
	check = func(tool, where string, s map[string]any, optional bool) {
		for k := range s {
			if !allowed[k] {
				t.Errorf("%s %s: keyword %q not allowed in strict mode", tool, where, k)
			}
		}
		types, _ := s["type"].([]any)
		if optional != (len(types) == 2 && types[1] == "null") {
			t.Errorf("%s %s: type %v; optional=%v must be exactly nullable", tool, where, s["type"], optional)
		}
		isObject := s["type"] == "object" || slices.Contains(types, any("object"))
		if isObject {
			if s["additionalProperties"] != false {
				t.Errorf("%s %s: additionalProperties must be false", tool, where)
			}
			props, _ := s["properties"].(map[string]any)
			req, _ := s["required"].([]any)
			if len(req) != len(props) {
				t.Errorf("%s %s: every property must be required (%d of %d)", tool, where, len(req), len(props))
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			check(tool, where+"[]", items, false)
		}
	}
	optional := map[string]bool{"offset": true, "limit": true, "glob": true, "ignore_case": true, "replace_all": true, "timeout_seconds": true}
	nameRE := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, tool := range Builtins(Policy{RunCommand: "ask"}) {
		if !nameRE.MatchString(tool.Name()) || tool.Description() == "" {
			t.Errorf("bad name or empty description: %q", tool.Name())
		}
		var s map[string]any
		if err := json.Unmarshal(tool.Schema(), &s); err != nil {
			t.Fatalf("%s: %v", tool.Name(), err)
		}
		check(tool.Name(), "root", s, false)
		props := s["properties"].(map[string]any)
		for name, p := range props {
			opt := optional[name]
			if name == "path" {
				opt = tool.Name() == "list_dir" || tool.Name() == "glob" || tool.Name() == "grep"
			}
			check(tool.Name(), name, p.(map[string]any), opt)
		}
	}
}

// TestProtocolParams pins the tool names and parameters of docs/protocol.md.
func TestProtocolParams(t *testing.T) {
	want := map[string][]string{
		"read_file":   {"path", "offset", "limit"},
		"list_dir":    {"path"},
		"glob":        {"pattern", "path"},
		"grep":        {"pattern", "path", "glob", "ignore_case"},
		"edit_file":   {"path", "old_string", "new_string", "replace_all"},
		"multi_edit":  {"path", "edits"},
		"write_file":  {"path", "content"},
		"run_command": {"command", "timeout_seconds"},
		"remember":    {"note"},
	}
	got := map[string][]string{}
	for _, tool := range Builtins(Policy{RunCommand: "ask"}) {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(tool.Schema(), &s)
		for k := range s.Properties {
			got[tool.Name()] = append(got[tool.Name()], k)
		}
		slices.Sort(got[tool.Name()])
	}
	for name, params := range want {
		slices.Sort(params)
		if !slices.Equal(got[name], params) {
			t.Errorf("%s params %v, want %v", name, got[name], params)
		}
	}
	if len(got) != len(want) {
		t.Errorf("tools %v", got)
	}
	if n := len(Builtins(Policy{})); n != 8 {
		t.Errorf("run_command must be off by default: %d tools", n)
	}
	if n := len(Builtins(Policy{RunCommand: "yes"})); n != 8 {
		t.Errorf("only \"ask\" enables run_command: %d tools", n)
	}
}

func TestArgumentDecoding(t *testing.T) {
	root := newWorkspace(t, map[string]string{"a.txt": "1\n2\n3\n"})
	env := newEnv(t, root, Policy{})
	tool := ReadFile()
	run := func(raw string) Result {
		res, err := tool.Call(context.Background(), env, json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: Go error %v", raw, err)
		}
		return res
	}
	mustErr(t, run(`{"path":"a.txt","bogus":1}`), "invalid arguments for read_file", "unknown parameter(s) bogus", "allowed: limit, offset, path")
	mustErr(t, run(`{"path":"a.txt","offset":"3"}`), "offset: expected integer, got string")
	mustErr(t, run(`{"offset":1}`), "missing required parameter(s) path")
	mustErr(t, run(`{"path":null}`), "missing required parameter(s) path")
	mustErr(t, run(`[1,2]`), "must be a JSON object")
	mustErr(t, run(`{"path":`), "must be a JSON object")
	// null for an optional parameter means absent.
	if got := mustOK(t, run(`{"path":"a.txt","offset":null,"limit":null}`)); got != "     1\t1\n     2\t2\n     3\t3\n" {
		t.Fatalf("got %q", got)
	}
	if got := mustOK(t, run(`{"path":"a.txt","offset":2,"limit":1}`)); got != "     2\t2\n[a.txt has 3 lines; showing 2-2; use offset=3 to continue]\n" {
		t.Fatalf("got %q", got)
	}
	// Nested objects are checked too.
	res, _ := MultiEdit().Call(context.Background(), env, json.RawMessage(`{"path":"a.txt","edits":[{"old_string":"1","new_string":"x","extra":true}]}`))
	mustErr(t, res, "unknown field")
	// Cancellation is a Go error, not a tool result.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tool.Call(ctx, env, json.RawMessage(`{"path":"a.txt"}`)); err == nil {
		t.Fatal("a cancelled call must return ctx.Err()")
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry(Builtins(Policy{})...)
	if _, ok := r.Get("grep"); !ok {
		t.Fatal("grep missing")
	}
	names := []string{}
	for _, tl := range r.List() {
		names = append(names, tl.Name())
	}
	if !slices.IsSorted(names) || len(names) != 8 {
		t.Fatalf("List must be sorted and complete: %v", names)
	}
	r.Remove("grep")
	if _, ok := r.Get("grep"); ok {
		t.Fatal("Remove failed")
	}
}
