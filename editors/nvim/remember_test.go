package nvim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemember is issue 32's user side in Neovim: `:AgentRemember we wrap
// errors with %w` stages a proposal on AGENTS.md that previews in its
// buffer while the file on disk stays as it was; :AgentAccept puts the
// bullet in the buffer (and :write on disk); the same rule asked with
// vim.ui.input is "already remembered"; a dismissed prompt sends nothing;
// a note the server refuses shows its reason as an error.
func TestRemember(t *testing.T) {
	t.Parallel()
	const rules = "# Rules\n"
	r := runScript(t, "remember.lua", options{files: map[string]string{"AGENTS.md": rules}})

	if msg := r.str(t, "proposed_msg"); !strings.Contains(msg, "proposed for AGENTS.md — review it like any change") {
		t.Errorf("message = %q", msg)
	}
	var pending int
	r.fact(t, "pending", &pending)
	want := rules + "- we wrap errors with %w\n"
	if got := r.str(t, "proposed_text"); pending != 1 || got != want {
		t.Errorf("%d proposals, proposed text %q; want 1, %q", pending, got, want)
	}
	if got := r.str(t, "disk_before_accept"); got != rules {
		t.Errorf("AGENTS.md on disk before the accept = %q", got)
	}
	if got := r.str(t, "buffer_before_accept"); got != "# Rules" {
		t.Errorf("buffer before the accept = %q", got)
	}
	var log []string
	r.fact(t, "log", &log)
	runID := r.str(t, "proposal_run")
	if !strings.Contains(strings.Join(log, "\n"), "["+runID+"] proposed for AGENTS.md: we wrap errors with %w") {
		t.Errorf("run log lacks the proposal of %q:\n%s", runID, strings.Join(log, "\n"))
	}
	if got := r.str(t, "buffer_after_accept"); got != "# Rules\n- we wrap errors with %w" {
		t.Errorf("buffer after the accept = %q", got)
	}
	if got := r.str(t, "disk_after_write"); got != want {
		t.Errorf("AGENTS.md after :write = %q", got)
	}

	var prompts []string
	r.fact(t, "prompts", &prompts)
	if len(prompts) != 2 || !strings.Contains(prompts[0], "AGENTS.md") {
		t.Errorf("vim.ui.input prompts = %q", prompts)
	}
	var already bool
	for _, n := range r.Notifications {
		already = already || strings.Contains(n.Msg, "already remembered")
	}
	if !already {
		t.Error(`the same rule again did not say "already remembered"`)
	}
	if msg := r.str(t, "refusal"); !strings.Contains(msg, "remember:") {
		t.Errorf("refusal = %q", msg)
	}
	var level, left int
	r.fact(t, "refusal_level", &level)
	r.fact(t, "pending_end", &left)
	if level != 4 || left != 0 { // vim.log.levels.ERROR
		t.Errorf("refusal level %d, %d hunks left; want ERROR and none", level, left)
	}

	// What reached the server: the typed note, the prompted one, the long
	// one; the dismissed prompt sent nothing.
	var notes []string
	for _, m := range byMethod(readWire(t, r.str(t, "wire")), "workspace/executeCommand") {
		var p struct {
			Command   string `json:"command"`
			Arguments []struct {
				Note string `json:"note"`
			} `json:"arguments"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Command == "agentls.remember" && len(p.Arguments) == 1 {
			notes = append(notes, p.Arguments[0].Note)
		}
	}
	if len(notes) != 3 || notes[0] != "we wrap errors with %w" || notes[1] != "We wrap errors with %w" || len(notes[2]) != 600 {
		t.Errorf("agentls.remember notes sent = %q", notes)
	}
	if b, err := os.ReadFile(filepath.Join(r.dir, "ws", "AGENTS.md")); err != nil || string(b) != want {
		t.Errorf("AGENTS.md at the end = %q (%v)", b, err)
	}
}
