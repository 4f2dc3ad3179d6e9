package agent

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// Tone is how a summary should be shown: a finished run whose checks
// pass is news, one whose checks still fail (or that introduces
// problems) a warning, a failed run an error.
type Tone int

const (
	ToneInfo Tone = iota
	ToneWarning
	ToneError
)

// EndSummary is the one-line summary of run id for people: "Agent run ID
// finished: <headline of the answer>; checks passed (test); 2 changed
// files …", with note (the face's words on its changes) after the checks.
// Clients without our plugins (eglot, Helix) see only this.
func EndSummary(id string, out Outcome, note string) (string, Tone) {
	suffix := ""
	if cn := ChecksNote(out.Checks); cn != "" {
		suffix = "; " + cn
	}
	if note != "" {
		suffix += "; " + note
	}
	if out.Problems > 0 {
		suffix += fmt.Sprintf("; introduces %s (language server)", text.Plural(out.Problems, "problem"))
	}
	if out.Status == StatusFinished && (!checksPassed(out.Checks) || out.Problems > 0) {
		msg, _ := EndSummary(id, Outcome{Status: out.Status, Answer: out.Answer}, "")
		return JoinNotes(msg, suffix), ToneWarning
	}
	switch out.Status {
	case StatusFinished:
		answer := text.Headline(out.Answer)
		if answer == "" {
			answer = "(no answer)"
		}
		return fmt.Sprintf("Agent run %s finished: %s", id, JoinNotes(text.Clip(answer, 200), suffix)), ToneInfo
	case StatusFailed:
		return fmt.Sprintf("Agent run %s failed: %s", id, JoinNotes(text.Clip(out.Reason(), 300), suffix)), ToneError
	default:
		return fmt.Sprintf("Agent run %s cancelled%s", id, suffix), ToneInfo
	}
}

// JoinNotes appends the notes ("; 2 changed files …") to a sentence
// without a ".;" between them: the sentence's closing period goes (one
// that ends an ellipsis stays), a question or exclamation keeps its mark
// and the notes follow after a dash.
func JoinNotes(sentence, notes string) string {
	if notes == "" {
		return sentence
	}
	switch {
	case strings.HasSuffix(sentence, "?"), strings.HasSuffix(sentence, "!"), strings.HasSuffix(sentence, "..."):
		return sentence + " — " + strings.TrimPrefix(notes, "; ")
	case strings.HasSuffix(sentence, "."), strings.HasSuffix(sentence, ";"), strings.HasSuffix(sentence, ":"), strings.HasSuffix(sentence, ","):
		return sentence[:len(sentence)-1] + notes
	}
	return sentence + notes
}

// ChecksNote says how the run's checks ended: "checks passed (test,
// lint)", "checks failed: test (exit code 1), lint (timed out)", then
// "could not run: test (sh: 1: go: not found)" apart, since those neither
// passed nor failed; "" when none ran. Clients without our plugins (eglot) see it in the end message.
func ChecksNote(checks []tools.CheckResult) string {
	if len(checks) == 0 {
		return ""
	}
	var passed, failed, notRun []string
	for _, c := range checks {
		switch {
		case c.Passed:
			passed = append(passed, c.Name)
		case c.NotRun:
			why := text.Clip(strings.TrimPrefix(text.FirstLine(c.Output), "could not run: "), 120)
			if c.ExitCode == 127 {
				why += "; is it on the PATH agentls runs with?"
			}
			notRun = append(notRun, c.Name+" ("+why+")")
		case c.ExitCode == -1:
			failed = append(failed, c.Name+" (timed out)")
		default:
			failed = append(failed, fmt.Sprintf("%s (exit code %d)", c.Name, c.ExitCode))
		}
	}
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, "checks failed: "+strings.Join(failed, ", "))
	} else if len(passed) > 0 {
		parts = append(parts, "checks passed ("+strings.Join(passed, ", ")+")")
	}
	if len(notRun) > 0 {
		parts = append(parts, "could not run: "+strings.Join(notRun, ", "))
	}
	return strings.Join(parts, "; ")
}

// checksPassed reports whether every check passed (one that could not run
// did not: the end message is then a warning, as the user must act).
func checksPassed(checks []tools.CheckResult) bool {
	for _, c := range checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

// maxNamedFiles bounds the files an end-of-run note names.
const maxNamedFiles = 3

// PendingNote is the end-of-run note of a run whose changes await review:
// it names them (display: the name people know a path by), at most
// maxNamedFiles, since a client without a plugin sees only this message
// and a file that is not open shows its proposal nowhere until visited.
func PendingNote(paths []string, display func(string) string) string {
	if len(paths) == 0 {
		return "no changes"
	}
	named := text.FirstOf(len(paths), maxNamedFiles, func(i int) string { return display(paths[i]) })
	return fmt.Sprintf("%s pending review (%s)", text.Plural(len(paths), "changed file"), strings.Join(named, ", "))
}

// HandOver settles the end of a run that applied its changes in the
// editor as it went: those the editor did not take (held: path → why) go
// to review, in path order, unless the run was cancelled (a cancelled
// run changes nothing more, so they are dropped). It returns the paths
// to put into review and the note for the end-of-run message.
func HandOver(status Status, applied int, held map[string]string, display func(string) string) (review []string, note string) {
	note = text.Plural(applied, "file") + " changed in the editor"
	if len(held) == 0 {
		return nil, note
	}
	if status == StatusCancelled {
		return nil, fmt.Sprintf("%s; %s not applied (run cancelled)", note, text.Plural(len(held), "staged change"))
	}
	review = slices.Sorted(maps.Keys(held))
	reasons := make([]string, len(review))
	for i, path := range review {
		reasons[i] = display(path) + ": " + held[path]
	}
	return review, fmt.Sprintf("%s; %s not applied, pending review (%s)", note, text.Plural(len(held), "change"), strings.Join(reasons, "; "))
}
