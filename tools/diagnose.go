package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// Diagnoser judges the run's staged text with the user's language servers
// (package tools/lang) so that every edit result says which problems the
// change introduced. Env.Diagnoser is nil when no language server serves the
// workspace, and then edit results are exactly what they were without one.
type Diagnoser interface {
	// Diagnose is called after a mutating tool staged changes: for each
	// change it reports the diagnostics of the new text that the text
	// before did not have (problems in other files the change broke
	// count too). It is bounded by its own wait (languageServerWaitSeconds)
	// and by ctx; files no language server serves are left out of the
	// report. An empty Text means nothing to add to the result.
	Diagnose(ctx context.Context, env *Env, changes []FileChange) DiagnoseReport
}

// FileChange is one file's staged change as a mutating tool made it.
type FileChange struct {
	Path   string // absolute
	Before string // the run's text before the change ("" for a new file)
	After  string // the run's text after it
}

// DiagnoseReport is what a Diagnoser found for one tool call.
type DiagnoseReport struct {
	// Text ends the tool result: the introduced problems (errors first, at
	// most 10, "path:line: message"), "no new problems", or why there is no
	// answer ("language server gave no answer in 5s").
	Text string
	// Files are the files whose problems were checked, for the run's
	// problems events.
	Files []FileProblems
}

// FileProblems is the problems a change introduced in one file.
type FileProblems struct {
	Path string // absolute
	// Introduced counts the problems this change introduced; Items lists
	// them (errors first), possibly fewer than Introduced when there were
	// very many.
	Introduced int
	Items      []Problem
	// Outstanding are the problems the run has introduced in the file so
	// far, relative to the file before the run changed it: what its
	// proposal for the file brings (errors first, bounded like Items).
	Outstanding []Problem
	// Text is the file's text the ranges refer to (the staged text).
	Text string
}

// Problem is one diagnostic, in our own type so that agent and lspserver
// need not import the protocol package.
type Problem struct {
	// Range is in the file's text with UTF-8 (byte) columns; front-ends
	// convert it to their client's encoding with FileProblems.Text.
	Range    text.Range
	Severity string // "error", "warning", "information", "hint"
	Message  string
	Source   string // e.g. "compiler", "Pyright", "ts"
	Code     string
}

// diagnose runs the Diagnoser after a mutating call staged changes and appends
// its report to res; without a Diagnoser res is returned unchanged.
func (env *Env) diagnose(ctx context.Context, res Result, changes ...FileChange) Result {
	if env.Diagnoser == nil || res.IsError || len(changes) == 0 {
		return res
	}
	rep := env.Diagnoser.Diagnose(ctx, env, changes)
	if rep.Text != "" {
		res.Text = strings.TrimRight(res.Text, "\n") + "\n\n" + rep.Text
	}
	res.Problems = append(res.Problems, rep.Files...)
	return res
}

// Resolve confines a model-supplied path to the workspace folders and
// returns it absolute, with symlinks resolved; the error is written for
// the model.
func (env *Env) Resolve(path string) (string, error) { return env.resolve(path) }

// Display is how abs is shown to the model: relative to the first
// workspace folder when inside it, else absolute.
func (env *Env) Display(abs string) string { return env.display(abs) }

// IsSecret reports whether the policy keeps abs's contents from the model
// (environment files, private keys, the user's secretPatterns).
func (env *Env) IsSecret(abs string) bool { return env.isSecret(abs) }

// Text returns abs as the run sees it: its staged text first, else the
// editor's buffer, else the disk. exists is false for a file that is
// neither staged nor present. It records nothing in the ledger: callers
// that show the whole text to the model use read_file.
func (env *Env) Text(abs string) (content string, exists bool, err error) {
	if st, ok := env.Changes.Get(abs); ok {
		return st.Text, true, nil
	}
	snap, err := env.View.Read(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return snap.Text, true, nil
}

// StageComputed stages changes computed by a tool rather than typed by the
// model (a language server's rename), through the same pipeline as
// edit_file: each file is confined, never inside .git, and must still hold
// exactly Before as the run sees it (staged text, buffer or disk), else
// the call is refused with CONFLICT and nothing is staged; a change of a
// secret-looking file refuses the whole call, as read_file would. The files count
// as read: the result shows the model what changed. verb heads the result
// ("Renamed Add to Sum in"). The Diagnoser's report ends it.
func (env *Env) StageComputed(ctx context.Context, verb string, changes []FileChange) Result {
	if len(changes) == 0 {
		return Errorf("nothing to change")
	}
	for _, c := range changes {
		// The result shows each file's diff: a secret's lines would reach
		// the model, and `agentls run --apply` would write what the model
		// was never allowed to read.
		if env.isSecret(c.Path) {
			return secretChangeRefusal(env.display(c.Path))
		}
	}
	targets := make([]target, len(changes))
	for i, c := range changes {
		t, ok := env.computedTarget(c)
		if !ok {
			return Errorf("CONFLICT: %s changed while the change was computed; nothing was staged. Try again.", t.path)
		}
		targets[i] = t
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d file(s):", verb, len(changes))
	added, removed := 0, 0
	for i, c := range changes {
		t := targets[i]
		if !t.staged {
			env.Ledger.Record(t.abs, t.snap.Hash, t.snap.Text)
		}
		env.stageText(t, c.After)
		d := renderDiff(c.Before, c.After, resultMaxLines/len(changes)+4)
		added, removed = added+d.added, removed+d.removed
		fmt.Fprintf(&b, "\n%s (+%d -%d lines)\n%s", t.path, d.added, d.removed, strings.TrimRight(d.text, "\n"))
		if !d.complete {
			b.WriteString("\n[diff cut; read the file to see the rest]")
		}
	}
	res := Result{Text: b.String(), Summary: fmt.Sprintf("%s %d file(s) (+%d -%d)", strings.ToLower(verb), len(changes), added, removed)}
	return env.diagnose(ctx, res, changes...)
}

// secretChangeRefusal is the answer when a computed change (a rename)
// would edit a secret-looking file: nothing is staged, and the model is
// told which file, never its lines.
func secretChangeRefusal(path string) Result {
	return Errorf("this change would also edit %s, which looks like a secret (environment file, private key or credentials file) whose contents are not shown to the model; nothing was staged. Make the change in the other files with edit_file and tell the user what %s needs, or the user can allow secret files with the allowSecrets setting.", path, path)
}

// computedTarget loads c.Path for StageComputed: the run's current text of
// the file (staged, else buffer or disk) must be c.Before. A read the model
// made earlier may be stale without harm here: the change was computed
// from the current text, not typed against the model's memory of it.
func (env *Env) computedTarget(c FileChange) (target, bool) {
	t := target{abs: c.Path, path: env.display(c.Path)}
	if inGitDir(c.Path) {
		return t, false
	}
	snap, err := env.View.Read(c.Path)
	if err != nil {
		return t, false
	}
	t.exists, t.snap = true, snap
	if st, ok := env.Changes.Get(c.Path); ok {
		if !stagedHolds(st, true, snap.Hash) {
			return t, false
		}
		t.text, t.staged, t.read = st.Text, true, true
	} else {
		t.text = snap.Text
		_, t.read = env.Ledger.Lookup(c.Path)
	}
	return t, t.text == c.Before
}
