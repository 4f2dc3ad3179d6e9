package tools

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
)

func TestNormalizeNote(t *testing.T) {
	for in, want := range map[string]string{
		"  - Use %w\n\nfor errors.\r\n": "Use %w for errors.",
		"* # not a heading":             "# not a heading",
	} {
		if got, err := NormalizeNote(in); err != nil || got != want {
			t.Errorf("NormalizeNote(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", " \n- ", strings.Repeat("x", MaxNoteBytes+1)} {
		if _, err := NormalizeNote(bad); err == nil {
			t.Errorf("NormalizeNote(%q...) accepted", bad[:min(len(bad), 10)])
		}
	}
}

func TestAppendNote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "- A.\n"},
		{"# R", "# R\n- A.\n"},
		{"# R\r\n- B.\r\n", "# R\r\n- B.\r\n- A.\r\n"},
	} {
		if got, added := AppendNote(c.in, "A."); !added || got != c.want {
			t.Errorf("AppendNote(%q) = %q, %v; want %q", c.in, got, added, c.want)
		}
	}
	if _, added := AppendNote("x\n  * a.\n", "A."); added {
		t.Error("a duplicate bullet was added")
	}
}

func TestNoteChange(t *testing.T) {
	f, added := NoteChange("/w/AGENTS.md", "# Rules\n", true, "Use %w.")
	want := StagedFile{Path: "/w/AGENTS.md", Base: "# Rules\n", BaseHash: HashText("# Rules\n"),
		Text: "# Rules\n- Use %w.\n", TextHash: HashText("# Rules\n- Use %w.\n")}
	if !added || f != want {
		t.Fatalf("NoteChange of an existing file = %+v, %v; want %+v", f, added, want)
	}
	f, added = NoteChange("/w/AGENTS.md", "", false, "Use %w.")
	if !added || !f.Created || f.BaseHash != "" || f.Text != "- Use %w.\n" || f.TextHash != HashText("- Use %w.\n") {
		t.Fatalf("NoteChange of a missing file = %+v, %v", f, added)
	}
	if !strings.Contains(f.Unified("AGENTS.md"), "--- /dev/null") {
		t.Fatalf("a created rules file's diff is not from /dev/null:\n%s", f.Unified("AGENTS.md"))
	}
	if f, added := NoteChange("/w/AGENTS.md", "- use %W.\n", true, "Use %w."); added || f.Pending() {
		t.Fatalf("a rule already there was staged again: %+v", f)
	}
}

func TestProjectRules(t *testing.T) {
	if _, err := ProjectRules(workspace.New(workspace.Options{})); !errors.Is(err, ErrNoFolder) {
		t.Fatalf("no folder: err = %v, want ErrNoFolder", err)
	}
	a, _ := filepath.EvalSymlinks(t.TempDir())
	b, _ := filepath.EvalSymlinks(t.TempDir())
	got, err := ProjectRules(workspace.New(workspace.Options{Folders: []string{a, b}}))
	if want := filepath.Join(a, RulesFile); err != nil || got != want {
		t.Fatalf("ProjectRules = %q, %v; want %q in the first folder", got, err, want)
	}
}
