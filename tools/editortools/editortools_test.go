package editortools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools"
)

func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }

func defs(t *testing.T, raw string) []Def {
	t.Helper()
	var d []Def
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRegisterCallAndReplace(t *testing.T) {
	var got []string
	s := NewSet(func(_ context.Context, runID, name string, args json.RawMessage) (string, bool, error) {
		got = append(got, runID+" "+name+" "+string(args))
		if name == "broken" {
			return "no such buffer", true, nil
		}
		return "main.go:3:1: error: undefined: x", false, nil
	}, func() time.Duration { return time.Second })
	err := s.Replace(defs(t, `[
		{"name":"get_diagnostics","description":"Diagnostics the editor has.","inputSchema":{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}}}},"annotations":{"readOnlyHint":true}},
		{"name":"broken","description":"","inputSchema":null}]`))
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.ReadFile())
	s.Sync(reg)
	diag, ok := reg.Get("editor__get_diagnostics")
	if !ok || !diag.ReadOnly() || diag.Description() != "Diagnostics the editor has." {
		t.Fatalf("tool %v", diag)
	}
	broken, _ := reg.Get("editor__broken")
	if broken.ReadOnly() || string(broken.Schema()) != `{"type":"object","properties":{}}` || !strings.Contains(broken.Description(), `"broken" provided by the editor`) {
		t.Fatalf("broken: %v %s %q", broken.ReadOnly(), broken.Schema(), broken.Description())
	}
	env := &tools.Env{RunID: "run-7"}
	res, err := diag.Call(context.Background(), env, json.RawMessage(`{"paths":["main.go"]}`))
	if err != nil || res.IsError || res.Text != "main.go:3:1: error: undefined: x" {
		t.Fatalf("call: %+v %v", res, err)
	}
	res, _ = broken.Call(context.Background(), env, nil)
	if !res.IsError || res.Text != "no such buffer" {
		t.Fatalf("editor error: %+v", res)
	}
	if strings.Join(got, "|") != `run-7 get_diagnostics {"paths":["main.go"]}|run-7 broken {}` {
		t.Fatalf("invocations %q", got)
	}
	// A new registration replaces the set; Sync removes what went away.
	if err := s.Replace(defs(t, `[{"name":"open_buffers","description":"x"}]`)); err != nil {
		t.Fatal(err)
	}
	s.Sync(reg)
	var names []string
	for _, tl := range reg.List() {
		names = append(names, tl.Name())
	}
	if strings.Join(names, " ") != "editor__open_buffers read_file" {
		t.Fatalf("registry after replace: %v", names)
	}
}

func TestBadRegistrationsKeepTheSet(t *testing.T) {
	s := NewSet(nil, nil)
	if err := s.Replace(defs(t, `[{"name":"ok","description":"x"}]`)); err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]string{
		`[{"name":"has space"}]`:                                           `name "has space" must be`,
		`[{"name":""}]`:                                                    `name "" must be`,
		`[{"name":"a"},{"name":"a"}]`:                                      `registered twice`,
		`[{"name":"a","inputSchema":"string"}]`:                            `inputSchema must be a JSON object schema`,
		`[{"name":"` + strings.Repeat("n", 57) + `"}]`:                     `must be 1-56`,
		`[{"name":"a","description":"` + strings.Repeat("d", 5000) + `"}]`: `description is 5000 bytes`,
	} {
		err := s.Replace(defs(t, raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60s: %v, want %q", raw, err, want)
		}
	}
	if ts := s.Tools(); len(ts) != 1 || ts[0].Name() != "editor__ok" {
		t.Fatalf("set changed: %v", ts)
	}
	res, err := s.Tools()[0].Call(context.Background(), nil, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Text, "no connection") {
		t.Fatalf("no invoker: %+v %v", res, err)
	}
}

// An editor that never answers fails the call (a tool error) within the
// timeout; cancelling the run ends the call with a Go error at once.
func TestSilentEditorFailsTheCallNotTheRun(t *testing.T) {
	s := NewSet(func(ctx context.Context, _, _ string, _ json.RawMessage) (string, bool, error) {
		<-ctx.Done()
		return "", false, ctx.Err()
	}, func() time.Duration { return 200 * time.Millisecond })
	if err := s.Replace(defs(t, `[{"name":"get_selection"}]`)); err != nil {
		t.Fatal(err)
	}
	tool := s.Tools()[0]
	res, err := tool.Call(context.Background(), &tools.Env{}, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Text, "did not answer within 200ms") {
		t.Fatalf("timeout: %+v %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = tool.Call(ctx, &tools.Env{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}
}
