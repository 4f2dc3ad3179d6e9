package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools/editmatch"
)

//go:embed descriptions/remember.md
var rememberDescription string

// MaxNoteBytes bounds one remembered note: AGENTS.md is read into every
// run's system prompt, so a note is a rule, not a document.
const MaxNoteBytes = 500

// RulesFile is the name of the instruction file memory goes to, in the
// workspace root, in nested directories and in the user's config folder.
const RulesFile = "AGENTS.md"

// rememberParams has no scope: the model's notes go to the project's
// AGENTS.md only. The user's own file is outside the workspace, where
// tools never write (every path is confined to the folders), and a
// parameter that could only fail would cost every request its tokens
// (docs/performance.md); the user adds to it with the user-side commands
// (agentls remember --scope user).
type rememberParams struct {
	Note string `json:"note" jsonschema:"the rule"`
}

// Remember is the remember tool. Memory is a proposal on the project's
// AGENTS.md, staged like edit_file's changes, so the user sees and
// accepts (or rejects with a reason) what the agent keeps; nothing is
// written behind their back.
func Remember() Tool {
	return New("remember", rememberDescription, false, remember)
}

func remember(ctx context.Context, env *Env, p rememberParams) (Result, error) {
	note, err := NormalizeNote(p.Note)
	if err != nil {
		return Errorf("%v", err), nil
	}
	abs, err := ProjectRules(env.View)
	if err != nil {
		return Errorf("%v", err), nil
	}
	t, res, ok := env.lockTarget(abs)
	if !ok {
		return res, nil
	}
	next, added := AppendNote(t.text, note)
	if !added {
		return Result{Text: fmt.Sprintf("%s already holds this rule; nothing to change", t.path), Summary: "already remembered"}, nil
	}
	env.stageText(t, next)
	var notes []string
	if t.pending != nil {
		notes = append(notes, replacesNote(*t.pending))
	}
	res = changeResult("Proposed a rule for", t, next, notes)
	res.Text += "\nThe user reviews it like any change; it reaches later runs once accepted."
	return res, nil
}

// ErrNoFolder: with no workspace folder open there is no project rules
// file to remember into.
var ErrNoFolder = errors.New("no workspace folder is open, so there is no project AGENTS.md")

// ProjectRules is the project's rules file, where every remember of the
// project scope goes (the model's tool, the editor's command): AGENTS.md
// in the first workspace folder, resolved and confined by the view.
func ProjectRules(view *workspace.View) (string, error) {
	folders := view.Folders()
	if len(folders) == 0 {
		return "", ErrNoFolder
	}
	return view.Resolve(filepath.Join(folders[0], RulesFile))
}

// NoteChange is the change a user's note (NormalizeNote's output) makes to
// the rules file at path, whose text is base (exists false: the file is
// still to be created): the note as a last bullet, staged with the hashes
// an accept checks, as the editor's command files it and the CLI prints
// it. added is false when the file already holds the rule.
func NoteChange(path, base string, exists bool, note string) (f StagedFile, added bool) {
	next, added := AppendNote(base, note)
	if !added {
		return StagedFile{}, false
	}
	f = StagedFile{Path: path, Base: base, Text: next, TextHash: HashText(next), Created: !exists}
	if exists {
		f.BaseHash = HashText(base)
	}
	return f, true
}

// NormalizeNote makes note one bullet's text: whitespace (newlines
// included) collapsed to single spaces, a leading list marker dropped,
// and bounded by MaxNoteBytes, so a note can never inject headings or
// break the list it joins.
func NormalizeNote(note string) (string, error) {
	n := strings.Join(strings.Fields(note), " ")
	for _, m := range []string{"- ", "* ", "+ "} {
		n = strings.TrimPrefix(n, m)
	}
	n = strings.TrimSpace(n)
	switch {
	case n == "" || n == "-" || n == "*" || n == "+":
		return "", errors.New("note is empty; give the rule to remember in one sentence")
	case len(n) > MaxNoteBytes:
		return "", fmt.Errorf("note is %d bytes, more than %d; keep it to one short rule", len(n), MaxNoteBytes)
	}
	return n, nil
}

// AppendNote returns text with note added as a bullet at its end (in the
// file's own line endings), and false when a bullet already says exactly
// that (compared without case or surrounding spaces).
func AppendNote(text, note string) (string, bool) {
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		for _, m := range []string{"- ", "* ", "+ "} {
			if strings.HasPrefix(l, m) && strings.EqualFold(strings.TrimSpace(l[len(m):]), note) {
				return text, false
			}
		}
	}
	eol := editmatch.DominantEOL(text)
	if eol == "" {
		eol = "\n"
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += eol
	}
	return text + "- " + note + eol, true
}
