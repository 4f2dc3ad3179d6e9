package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/tools/editmatch"
)

//go:embed descriptions/edit_file.md
var editFileDescription string

// EditFileParams are edit_file's arguments; exported for the callers that
// read edit_file calls without running the tool (next edits).
type EditFileParams struct {
	Path       string `json:"path" jsonschema:"file path"`
	OldString  string `json:"old_string" jsonschema:"exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"replacement text"`
	ReplaceAll *bool  `json:"replace_all,omitempty" jsonschema:"replace every occurrence"`
}

// EditFile is the edit_file tool.
func EditFile() Tool {
	return New("edit_file", editFileDescription, false, editFile)
}

func editFile(ctx context.Context, env *Env, p EditFileParams) (Result, error) {
	edits := []editmatch.Edit{{Old: p.OldString, New: p.NewString, ReplaceAll: p.ReplaceAll != nil && *p.ReplaceAll}}
	return env.applyEdits(ctx, p.Path, edits), nil
}

// applyEdits is edit_file and multi_edit: lock check, the matching ladder
// for each edit in order (all or nothing), then staging. An empty
// old_string in the first edit creates a file that does not exist yet. The
// Diagnoser's report on the staged text ends the result.
func (env *Env) applyEdits(ctx context.Context, pathArg string, edits []editmatch.Edit) Result {
	if len(edits) == 0 {
		return Errorf("no edits given")
	}
	abs, err := env.resolve(pathArg)
	if err != nil {
		return Errorf("%v", err)
	}
	t, res, ok := env.lockTarget(abs)
	if !ok {
		return res
	}
	present := t.exists || t.staged || t.pending != nil
	text := t.text
	var notes []string
	first := 0
	switch {
	case !present && edits[0].Old == "":
		if edits[0].New == "" {
			return Errorf("new_string is empty; nothing to create at %s", t.path)
		}
		text, first = edits[0].New, 1
		notes = append(notes, "created the file")
	case !present && t.read:
		return Errorf("%s no longer exists (it was deleted after you read it); use write_file to create it again", t.path)
	case !present:
		return Errorf("file not found: %s (to create it, use an empty old_string or write_file)", t.path)
	case t.pending != nil && !t.read:
		return pendingNewUnread(t.path, *t.pending)
	case !t.read:
		return Errorf("you have not read %s in this run; read it first (read_file) so the edit is based on its current content", t.path)
	case edits[0].Old == "" && text == "":
		text, first = edits[0].New, 1 // filling an empty file
	}
	for i := first; i < len(edits); i++ {
		out, err := editmatch.Apply(text, edits[i])
		if err != nil {
			var me *editmatch.Refusal
			if !errors.As(err, &me) {
				return Errorf("edit failed: %v", err)
			}
			if len(edits) > 1 {
				return Errorf("%s: edit %d of %d failed, so no edit was applied: %s", t.path, i+1, len(edits), me.Error())
			}
			return Errorf("%s: %s", t.path, me.Error())
		}
		text = out.Text
		notes = append(notes, describeOutcome(out, i, len(edits))...)
	}
	if text == t.text {
		return Errorf("%s: the edit changes nothing (new_string equals the matched text once line endings are kept)", t.path)
	}
	if text == "" && t.text != "" {
		return Errorf("%s: this edit would leave the file empty, so it was refused; use write_file with empty content if that is really intended", t.path)
	}
	if t.pending != nil {
		notes = append(notes, replacesNote(*t.pending))
	}
	env.stageText(t, text)
	return env.diagnose(ctx, changeResult("Edited", t, text, notes), FileChange{Path: t.abs, Before: t.text, After: text})
}

// describeOutcome explains one successful edit when there is something to
// say (several replacements, a rung of the ladder other than exact).
func describeOutcome(out editmatch.Outcome, i, n int) []string {
	prefix := ""
	if n > 1 {
		prefix = fmt.Sprintf("edit %d: ", i+1)
	}
	var notes []string
	if out.Count > 1 {
		notes = append(notes, fmt.Sprintf("%s%d replacements", prefix, out.Count))
	}
	if note := out.Note(); note != "" {
		notes = append(notes, prefix+note)
	}
	return notes
}

// stageText records text as the run's proposed content of t.
func (env *Env) stageText(t target, text string) {
	env.Changes.stage(t.abs, t.snap.Text, t.snap.Hash, !t.exists, text)
}

// changeResult reports a staged change: a headline, notes, and a compact
// numbered diff (never the whole file).
func changeResult(verb string, t target, after string, notes []string) Result {
	d := renderDiff(t.text, after, resultMaxLines)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (+%d -%d lines)", verb, t.path, d.added, d.removed)
	for _, n := range notes {
		b.WriteString("\n" + n)
	}
	b.WriteString("\n" + strings.TrimRight(d.text, "\n"))
	if !d.complete {
		b.WriteString("\n[diff cut; read the file to see the rest]")
	}
	return Result{Text: b.String(), Summary: fmt.Sprintf("%s %s (+%d -%d)", strings.ToLower(verb), t.path, d.added, d.removed)}
}
