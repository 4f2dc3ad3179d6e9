package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
)

// CheckAsk trims what the user typed and names, by its error, the field
// no configuration can make right.
func TestCheckAsk(t *testing.T) {
	prompt, model, err := CheckAsk("  fix the bug \n", " gpt-x ")
	if err != nil || prompt != "fix the bug" || model != "gpt-x" {
		t.Fatalf("CheckAsk = %q, %q, %v", prompt, model, err)
	}
	if _, model, err := CheckAsk("task", ""); err != nil || model != "" {
		t.Fatalf("no model: %q, %v", model, err)
	}
	for _, tc := range []struct {
		name, prompt, model string
		want                error
	}{
		{"blank prompt", " \t\n", "m", ErrNoPrompt},
		{"huge prompt", strings.Repeat("a", MaxPromptBytes+1), "", ErrPromptTooLarge},
		{"control character in model", "task", "gpt\x1b[2J", ErrBadModelName},
		{"model too long", "task", strings.Repeat("m", 300), ErrBadModelName},
	} {
		p, m, err := CheckAsk(tc.prompt, tc.model)
		if !errors.Is(err, tc.want) || p != "" || m != "" {
			t.Errorf("%s: got %q, %q, %v; want %v and nothing else", tc.name, p, m, err, tc.want)
		}
	}
}

// RunConfig judges the configuration the run will use: the model asked
// for, else the session's earlier choice, else the configured one.
func TestRunConfig(t *testing.T) {
	base := config.Config{}
	base.Model.BaseURL = "http://127.0.0.1:1/v1"
	base.Model.Name = "configured"
	s := NewSession("")

	got, err := s.RunConfig(base, "")
	if err != nil || got.Model.Name != "configured" {
		t.Fatalf("configured model: %q, %v", got.Model.Name, err)
	}
	if got, _ := s.RunConfig(base, "asked"); got.Model.Name != "asked" {
		t.Errorf("asked model: got %q", got.Model.Name)
	}
	s.st.Model = "chosen earlier"
	if got, _ := s.RunConfig(base, ""); got.Model.Name != "chosen earlier" {
		t.Errorf("session's choice: got %q", got.Model.Name)
	}
	if got, _ := s.RunConfig(base, "asked"); got.Model.Name != "asked" {
		t.Errorf("asked over the session's choice: got %q", got.Model.Name)
	}
	if base.Model.Name != "configured" {
		t.Errorf("RunConfig changed the caller's configuration: %q", base.Model.Name)
	}

	// A session that chose a model runs with it even when none is
	// configured: the faces used to refuse that run.
	unnamed := base
	unnamed.Model.Name = ""
	if _, err := s.RunConfig(unnamed, ""); err != nil {
		t.Errorf("the session's choice should complete the configuration: %v", err)
	}
	if _, err := NewSession("").RunConfig(unnamed, ""); !errors.Is(err, config.ErrNoModel) || !strings.Contains(err.Error(), "name") {
		t.Errorf("no model anywhere: got %v, want ErrNoModel naming what to set", err)
	}
	if _, err := NewSession("").RunConfig(config.Config{}, "asked"); !errors.Is(err, config.ErrNoModel) || !strings.Contains(err.Error(), "base URL") {
		t.Errorf("no endpoint: got %v, want ErrNoModel naming the base URL", err)
	}
}

// Prepare refuses a configuration without a model itself (no face can
// skip it), before the session keeps the model asked for.
func TestPrepareRefusesMissingModel(t *testing.T) {
	s := NewSession("")
	_, err := s.Prepare(context.Background(), Setup{TranscriptDir: NoTranscript}, RunRequest{Prompt: "task", Model: "asked"})
	if !errors.Is(err, config.ErrNoModel) {
		t.Fatalf("Prepare = %v, want ErrNoModel", err)
	}
	if m := s.Info().Model; m != "" {
		t.Errorf("a run that could not start left the session's model at %q", m)
	}
	if _, err := s.Prepare(context.Background(), Setup{TranscriptDir: NoTranscript}, RunRequest{Prompt: " "}); err == nil {
		t.Error("Prepare took a blank prompt")
	}

	// A given model needs no configuration; the choice is then kept.
	r, err := s.Prepare(context.Background(), Setup{TranscriptDir: NoTranscript, Model: nopModel{}}, RunRequest{Prompt: "task", Model: "asked"})
	if err != nil {
		t.Fatalf("Prepare with a given model: %v", err)
	}
	r.Close()
	if m := s.Info().Model; m != "asked" {
		t.Errorf("the session's model is %q, want the one asked for", m)
	}
}

// nopModel is a Model that is never called.
type nopModel struct{}

func (nopModel) Stream(context.Context, llm.Request, func(llm.Delta)) (llm.Response, error) {
	return llm.Response{}, errors.New("not called")
}

// FinalAnswer is a finished run's non-blank answer, nothing else.
func TestFinalAnswer(t *testing.T) {
	for _, tc := range []struct {
		out  Outcome
		want string
	}{
		{Outcome{Status: StatusFinished, Answer: "Done: renamed it."}, "Done: renamed it."},
		{Outcome{Status: StatusFinished, Answer: " \n"}, ""},
		{Outcome{Status: StatusFailed, Answer: "half an answer"}, ""},
		{Outcome{Status: StatusCancelled, Answer: "half an answer"}, ""},
	} {
		if got := tc.out.FinalAnswer(); got != tc.want {
			t.Errorf("%s with %q: got %q, want %q", tc.out.Status, tc.out.Answer, got, tc.want)
		}
	}
}

// LogAttrs are the same key-value pairs for every face.
func TestOutcomeLogAttrs(t *testing.T) {
	out := Outcome{RunID: "r1", Status: StatusCancelled, Turns: 3, ToolCalls: 5, Usage: llm.Usage{TotalTokens: 1234}}
	got := out.LogAttrs()
	want := []any{"run", "r1", "status", "cancelled", "turns", 3, "toolCalls", 5, "tokens", 1234}
	if len(got) != len(want) {
		t.Fatalf("LogAttrs = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("LogAttrs[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// Reason is the failure's error, or says there was none.
func TestOutcomeReason(t *testing.T) {
	if got := (Outcome{Status: StatusFailed, Err: ErrMaxTurns}).Reason(); got != ErrMaxTurns.Error() {
		t.Errorf("Reason = %q", got)
	}
	if got := (Outcome{Status: StatusFailed}).Reason(); got != "unknown error" {
		t.Errorf("Reason without an error = %q", got)
	}
}

// A batch of decisions reaches each run's session; each session touched
// is returned once, and a decision of no session is skipped.
func TestRecordDecisions(t *testing.T) {
	a, b := NewSession("a"), NewSession("b")
	a.transcriptDir, b.transcriptDir = NoTranscript, NoTranscript // no fate goes looking in the user's state
	for _, r := range []struct {
		s   *Session
		run string
	}{{a, "ra1"}, {a, "ra2"}, {b, "rb"}} {
		if busy := r.s.Reserve(r.run); busy != "" {
			t.Fatalf("Reserve(%s) = %q", r.run, busy)
		}
		r.s.Release(r.run)
	}
	of := map[string]*Session{"ra1": a, "ra2": a, "rb": b}
	sessionOf := func(run string) *Session { return of[run] }
	ds := []Decision{
		{RunID: "ra1", Path: "/w/x.go", Accepted: true, Applied: "x", Hunks: 1},
		{RunID: "rb", Path: "/w/y.go", Reason: "wrong name", Document: "y", Hunks: 2},
		{RunID: "ra2", Path: "/w/z.go", Document: "z", Hunks: 1},
		{RunID: "gone", Path: "/w/q.go", Hunks: 1},
	}
	touched := RecordDecisions(ds, sessionOf)
	if len(touched) != 2 || touched[0] != a || touched[1] != b {
		t.Fatalf("touched = %v, want [a b]", touched)
	}
	an, bn := strings.Join(a.st.Notes, "\n"), strings.Join(b.st.Notes, "\n")
	for _, want := range []string{"accepted 1 hunk of your change to x.go", "rejected 1 hunk of your change to z.go (no reason given)"} {
		if !strings.Contains(an, want) {
			t.Errorf("session a's notes %q lack %q", an, want)
		}
	}
	if !strings.Contains(bn, `rejected 2 hunks of your change to y.go, saying: "wrong name"`) || strings.Contains(bn, "x.go") {
		t.Errorf("session b's notes = %q", bn)
	}
	if a.st.Known["/w/z.go"] != "z" || b.st.Known["/w/y.go"] != "y" {
		t.Errorf("the documents after the rejections were not kept: %v %v", a.st.Known, b.st.Known)
	}

	// Queue reaches only the run in progress.
	if busy := a.Reserve("ra3"); busy != "" {
		t.Fatal(busy)
	}
	of["ra3"] = a
	QueueDecisions([]Decision{{RunID: "ra3", Path: "/w/x.go"}, {RunID: "ra1", Path: "/w/x.go"}, {RunID: "gone"}}, sessionOf)
	if len(a.inputs) != 1 || a.inputs[0].RunID != "ra3" {
		t.Errorf("queued inputs = %+v, want ra3's only", a.inputs)
	}
}
