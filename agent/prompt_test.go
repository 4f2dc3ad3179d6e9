package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// mapView is a workspaceReader over a map, for prompt assembly tests.
type mapView struct {
	folders []string
	files   map[string]string
}

func (v mapView) Folders() []string { return v.folders }
func (v mapView) Read(p string) (workspace.Snapshot, error) {
	if t, ok := v.files[p]; ok {
		return workspace.Snapshot{Path: p, Text: t}, nil
	}
	return workspace.Snapshot{}, os.ErrNotExist
}

var day = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

func TestSystemPromptHasEnvironmentAndRules(t *testing.T) {
	v := mapView{folders: []string{"/w/proj", "/w/lib"}, files: map[string]string{
		"/w/proj/AGENTS.md": "Use tabs.\nRun go test.",
		filepath.Join("/w/proj", ".agentls", "rules.md"): "Never touch vendor/.",
		"/w/lib/AGENTS.md": "IGNORED: only the first folder counts",
	}}
	p := buildSystemPrompt(v, day)
	for _, want := range []string{"You are agentls", "Workspace folders: /w/proj, /w/lib", "Date: 2026-03-04", "OS: ", "<AGENTS.md>\nUse tabs.\nRun go test.\n</AGENTS.md>", "<.agentls/rules.md>\nNever touch vendor/.\n</.agentls/rules.md>"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "IGNORED") {
		t.Error("rules of a second folder were included")
	}
	if buildSystemPrompt(v, day) != p {
		t.Error("system prompt is not deterministic")
	}
}

func TestSystemPromptWithoutViewOrRules(t *testing.T) {
	p := buildSystemPrompt(nil, day)
	if strings.Contains(p, "Project rules") || strings.Contains(p, "Workspace folders") || !strings.Contains(p, "Date: 2026-03-04") {
		t.Fatalf("prompt = %s", p)
	}
	p = buildSystemPrompt(mapView{folders: []string{"/w"}}, day)
	if strings.Contains(p, "Project rules") {
		t.Fatalf("rules section without rules files")
	}
}

func TestRulesAreSizeCapped(t *testing.T) {
	big := strings.Repeat("ü", maxRulesBytes) // 2 bytes each: cut must respect UTF-8
	p := buildSystemPrompt(mapView{folders: []string{"/w"}, files: map[string]string{"/w/AGENTS.md": big, filepath.Join("/w", ".agentls", "rules.md"): "second"}}, day)
	if !strings.Contains(p, "[rules truncated]") || strings.Contains(p, "second") || len(p) > maxRulesBytes+3000 {
		t.Fatalf("rules not capped (len %d)", len(p))
	}
	if !strings.Contains(p, strings.Repeat("ü", 100)) || strings.Contains(p, "\uFFFD") {
		t.Fatal("rules cut inside a character")
	}
}

func TestTaskMessageWithEditorContext(t *testing.T) {
	ec := &EditorContext{
		Path:      "/w/proj/pkg/main.go",
		Range:     &text.Range{Start: text.Position{Line: 9, Character: 0}, End: text.Position{Line: 11, Character: 4}},
		Selection: "func main() {\n\tfmt.Println(\"héllo 😀\")\n}",
		Diagnostics: []Diagnostic{
			{Range: text.Range{Start: text.Position{Line: 10, Character: 1}}, Severity: "error", Message: "undefined: fmt", Source: "compiler", Code: "UndeclaredName"},
			{Range: text.Range{Start: text.Position{Line: 3}}, Message: "unused"},
		},
	}
	got := buildTaskMessage("Fix the error", ec, []string{"/w/proj"})
	want := "Fix the error\n\n<editor>\nFile: pkg/main.go\nSelection: line 10 col 1 to line 12 col 5\n" +
		"Selected text:\n```\nfunc main() {\n\tfmt.Println(\"héllo 😀\")\n}\n```\n" +
		"Diagnostics:\n- line 11 col 2: error: undefined: fmt (compiler UndeclaredName)\n- line 4 col 1: problem: unused\n</editor>"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if buildTaskMessage("Just a question", nil, nil) != "Just a question" {
		t.Fatal("task without editor context changed")
	}
	// A selection containing a fence gets a longer fence; outside paths stay absolute.
	got = buildTaskMessage("x", &EditorContext{Path: "/elsewhere/a.md", Selection: "```go\ncode\n```"}, []string{"/w/proj"})
	if !strings.Contains(got, "File: /elsewhere/a.md") || !strings.Contains(got, "````\n```go\ncode\n```\n````") {
		t.Fatalf("got:\n%s", got)
	}
}

func TestCounter(t *testing.T) {
	c := NewCounter()
	if c.encoding() == nil {
		t.Fatal("offline tokenizer did not load")
	}
	if n := c.Count("hello world"); n != 2 {
		t.Fatalf("Count(hello world) = %d, want 2", n)
	}
	if n := c.Count(""); n != 0 {
		t.Fatalf("empty = %d", n)
	}
	var fallback *Counter
	if n := fallback.Count("12345678"); n != 2 {
		t.Fatalf("fallback estimate = %d", n)
	}
}

// TestSystemPromptBudget keeps the fixed prompt small: every request pays
// for it.
func TestSystemPromptBudget(t *testing.T) {
	n := NewCounter().Count(buildSystemPrompt(mapView{folders: []string{"/home/user/src/project"}}, day))
	if n > 300 {
		t.Fatalf("system prompt is %d tokens, budget 300", n)
	}
	t.Logf("system prompt: %d tokens", n)
}

// TestRunReadsRulesThroughTheView uses the real workspace view: the rules
// come from the editor buffer when AGENTS.md is open, else from disk.
func TestRunReadsRulesThroughTheView(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("DISK RULE"), 0o644); err != nil {
		t.Fatal(err)
	}
	view := workspace.New(workspace.Options{Folders: []string{dir}})
	m := script(func(d func(llmDelta)) llmResponse { return reply(d, "ok") })
	opts := newOpts(m, &eventLog{})
	opts.Env.View = view
	opts.Now = func() time.Time { return day }
	opts.Editor = &EditorContext{Path: filepath.Join(view.Folders()[0], "main.go")}
	if out := Run(context.Background(), opts); out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	sys := m.reqs()[0].Messages[0].Content
	if !strings.Contains(sys, "DISK RULE") || !strings.Contains(sys, "Workspace folders: "+view.Folders()[0]) || !strings.Contains(sys, "2026-03-04") {
		t.Fatalf("system prompt:\n%s", sys)
	}
	if task := m.reqs()[0].Messages[1].Content; !strings.Contains(task, "File: main.go") {
		t.Fatalf("task:\n%s", task)
	}
	view.Open(filepath.Join(view.Folders()[0], "AGENTS.md"), 1, "BUFFER RULE")
	m2 := script(func(d func(llmDelta)) llmResponse { return reply(d, "ok") })
	opts.Model = m2
	Run(context.Background(), opts)
	if sys := m2.reqs()[0].Messages[0].Content; !strings.Contains(sys, "BUFFER RULE") || strings.Contains(sys, "DISK RULE") {
		t.Fatalf("open buffer not used:\n%s", sys)
	}
}

// TestSystemPromptPrefixIsStable: the rules a language server or plan
// mode add come after every byte of the core rules, so runs with and
// without them share the prompt's prefix (provider prompt caches match on
// it), and the same run options build the same bytes every time.
func TestSystemPromptPrefixIsStable(t *testing.T) {
	view := mapView{folders: []string{"/home/user/src/project"}}
	prompt := func(role runRole, o Options) string {
		r := &runner{opts: o, role: role, env: &tools.Env{}}
		return r.systemPrompt(view, day)
	}
	for _, c := range []struct {
		name string
		role runRole
		core string
		o    Options
	}{
		{"language", roleMain, systemPromptCore, Options{Language: true}},
		{"plan", roleMain, systemPromptCore, Options{Mode: ModePlan}},
		{"language and plan", roleMain, systemPromptCore, Options{Language: true, Mode: ModePlan}},
		{"sub-agent with language", roleTask, taskSystemCore, Options{Language: true}},
	} {
		p := prompt(c.role, c.o)
		if !strings.HasPrefix(p, c.core) || p == prompt(c.role, Options{}) {
			t.Errorf("%s: the prompt does not extend the core:\n%s", c.name, p)
		}
		if p != prompt(c.role, c.o) {
			t.Errorf("%s: two builds differ", c.name)
		}
	}
}
