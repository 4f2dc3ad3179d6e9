// Package revert takes a whole run back after its changes landed: the
// snapshots of what each accepted (or applied) change replaced, and the
// merge that undoes a change while keeping what the user typed since.
//
// A snapshot is written when a change lands (review's accept, apply mode,
// `agentls run --apply`, a change allowed over `agentls acp`) under the
// state directory, so a revert works after a restart and from any
// front-end: `agentls revert` and the LSP server's agentls.revert read
// the same store. Undoing is per hunk: the run's change to a file is
// reversed only where the file still holds what the run put there; lines
// the user changed since are left alone and reported, while lines the user
// added or changed next to the run's lines neither block the revert nor
// are lost. A file the run created is deleted only if it is unchanged.
package revert

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// File is one file's change as it landed.
type File struct {
	Path    string `json:"path"` // absolute
	Before  string `json:"before"`
	After   string `json:"after"`
	Created bool   `json:"created,omitempty"` // the run created the file (the first landing's Before is "")
	// Earlier holds the run's earlier landings in this file, oldest first,
	// when the file changed between them (the user typed between two
	// accepts): Before/After is then only the latest landing. Folding them
	// into one Before→After would make the user's text between the
	// accepts look like the run's, and a revert would take it away.
	Earlier []Step `json:"earlier,omitempty"`
}

// Step is one landing of a run's change in a file: the text it replaced
// and the text it left.
type Step struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// Result is what undoing one file's change would do to its current text.
type Result struct {
	Path string
	// Text is the file's text after the revert (when !Delete).
	Text string
	// Delete: the run created the file and it is unchanged: remove it.
	Delete bool
	// Changed says whether anything is to be written or deleted.
	Changed bool
	// Reverted counts the run's hunks undone; Kept the hunks left alone
	// because the user changed their lines since.
	Reverted, Kept int
	// Conflict explains what was left alone ("" when everything was undone).
	Conflict string
}

// ErrGone is returned by Undo for a file the run changed that no longer
// exists (deleted or renamed since): nothing to write to.
var ErrGone = errors.New("the file no longer exists")

// Undo computes the revert of f against the file's current text (exists
// false: the file is not there). A file that landed in several steps with
// the user's edits between them is undone step by step, newest first,
// each step as a merge that keeps what the user typed since it landed.
func Undo(f File, current string, exists bool) (Result, error) {
	if len(f.Earlier) == 0 {
		return undoStep(f, current, exists)
	}
	steps := append(append([]Step(nil), f.Earlier...), Step{Before: f.Before, After: f.After})
	if current != f.After && exists && !f.Created {
		// Already reverted (by a revert, or by hand): what the revert of
		// the file as the run left it gives.
		if done, err := Undo(f, f.After, true); err == nil && done.Changed && done.Text == current {
			return Result{Path: f.Path, Text: current, Conflict: "already as before the run"}, nil
		}
	}
	r := Result{Path: f.Path, Text: current}
	text := current
	for i := len(steps) - 1; i >= 0; i-- {
		one, err := undoStep(File{Path: f.Path, Before: steps[i].Before, After: steps[i].After, Created: f.Created && i == 0}, text, exists)
		if err != nil {
			return Result{Path: f.Path}, err
		}
		r.Reverted += one.Reverted
		r.Kept += one.Kept
		if one.Delete {
			r.Delete = true
			break
		}
		if one.Changed {
			text = one.Text
		}
	}
	r.Text = text
	r.Changed = r.Delete || text != current
	switch {
	case r.Delete:
		r.Text = ""
	case r.Kept > 0:
		r.Conflict = fmt.Sprintf("%d of %d changes left alone: you changed those lines after the run", r.Kept, r.Kept+r.Reverted)
	case !r.Changed:
		r.Conflict = "already as before the run"
	}
	return r, nil
}

// undoStep computes the revert of one landing of f against current.
func undoStep(f File, current string, exists bool) (Result, error) {
	r := Result{Path: f.Path}
	switch {
	case f.Created && !exists:
		r.Conflict = "already deleted"
		return r, nil
	case f.Created && current == f.After:
		r.Delete, r.Changed, r.Reverted = true, true, 1
		return r, nil
	case f.Created:
		r.Kept = 1
		r.Conflict = "the file was changed after the run created it, so it was left in place"
		r.Text = current
		return r, nil
	case !exists:
		return r, fmt.Errorf("%s: %w (deleted or renamed after the run)", f.Path, ErrGone)
	case current == f.Before:
		r.Text, r.Conflict = current, "already as before the run"
		return r, nil
	case current == f.After:
		r.Text, r.Changed = f.Before, true
		r.Reverted = max(1, len(hunks(udiff.Lines(f.After, f.Before))))
		return r, nil
	}
	// The user changed the file since: undo the run's hunks whose lines
	// the user did not touch, leave the others. The three texts are
	// diffed with one more line ending at their end, so that a last line
	// without one is a whole line too: otherwise appending below it
	// rewrites it (adds its ending) and looks like a change to the run's
	// line.
	eol := lineEnding(f.After, current, f.Before)
	after, was, now := f.After+eol, f.Before+eol, current+eol
	undo := udiff.Lines(after, was)
	user := udiff.Lines(after, now)
	var keep []udiff.Edit
	for _, h := range hunks(undo) {
		if conflicts(h, user) {
			r.Kept++
			continue
		}
		r.Reverted++
		keep = append(keep, h...)
	}
	if len(keep) > 0 {
		m, ok := udiff.Merge(user, keep)
		out, err := "", errors.New("conflicting edits")
		if ok {
			out, err = udiff.Apply(after, m)
		}
		// The merged text ends with the added ending unless the lines
		// mix endings in a way the merge cannot line up; then nothing is
		// guessed and the file stays as it is.
		if trimmed, cut := strings.CutSuffix(out, eol); err == nil && cut {
			r.Text, r.Changed = trimmed, trimmed != current
		} else {
			r.Kept += r.Reverted
			r.Reverted = 0
		}
	}
	if !r.Changed {
		r.Text = current
	}
	if r.Kept > 0 {
		r.Conflict = fmt.Sprintf("%d of %d changes left alone: you changed those lines after the run", r.Kept, r.Kept+r.Reverted)
	}
	return r, nil
}

// hunks groups line edits into the runs of adjacent edits a person sees as
// one change.
func hunks(edits []udiff.Edit) [][]udiff.Edit {
	var out [][]udiff.Edit
	for i, e := range edits {
		if i > 0 && edits[i-1].End >= e.Start {
			out[len(out)-1] = append(out[len(out)-1], e)
			continue
		}
		out = append(out, []udiff.Edit{e})
	}
	return out
}

// conflicts reports whether the user's edits (of the run's text) touch a
// line of the run's hunk: change one of its lines, or insert between two
// of them. Lines the user added right above or below the hunk, or
// neighbouring lines the user changed, do not: the merge keeps them where
// they are. Where the run removed lines (an empty hunk), the user's lines
// inserted at that very place do conflict: the run's old lines could go
// above them or below, and the user may have typed them back.
func conflicts(h []udiff.Edit, user []udiff.Edit) bool {
	start, end := h[0].Start, h[len(h)-1].End
	for _, u := range user {
		if u.Start < end && start < u.End {
			return true
		}
		if start == end && u.Start == start && u.End == start {
			return true
		}
	}
	return false
}

// lineEnding is the line ending of the first of texts that has one.
func lineEnding(texts ...string) string {
	for _, t := range texts {
		if i := strings.IndexByte(t, '\n'); i > 0 && t[i-1] == '\r' {
			return "\r\n"
		} else if i >= 0 {
			return "\n"
		}
	}
	return "\n"
}

// Summary is one line per file for people (CLI, showMessage).
func Summary(rs []Result) string {
	var b strings.Builder
	for _, r := range rs {
		switch {
		case r.Delete:
			fmt.Fprintf(&b, "%s: deleted (the run created it)\n", r.Path)
		case r.Changed && r.Conflict == "":
			fmt.Fprintf(&b, "%s: reverted\n", r.Path)
		case r.Changed:
			fmt.Fprintf(&b, "%s: partly reverted; %s\n", r.Path, r.Conflict)
		default:
			fmt.Fprintf(&b, "%s: left alone; %s\n", r.Path, r.Conflict)
		}
	}
	return b.String()
}
