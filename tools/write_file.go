package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/agentls/agentls/tools/editmatch"
)

//go:embed descriptions/write_file.md
var writeFileDescription string

type writeFileParams struct {
	Path    string `json:"path" jsonschema:"file path"`
	Content string `json:"content" jsonschema:"the whole file content"`
}

// WriteFile is the write_file tool: create a file, or replace one the run
// has read (the lock check applies as for edits).
func WriteFile() Tool {
	return New("write_file", writeFileDescription, false, writeFile)
}

func writeFile(ctx context.Context, env *Env, p writeFileParams) (Result, error) {
	abs, err := env.resolve(p.Path)
	if err != nil {
		return Errorf("%v", err), nil
	}
	t, res, ok := env.lockTarget(abs)
	if !ok {
		return res, nil
	}
	present := t.exists || t.staged || t.pending != nil
	// A blank file (an empty editor buffer for a path the user opened to
	// have it written, which Neovim sends as one line ending) has nothing
	// a write without a read could lose.
	blank := t.exists && !t.staged && Blank(t.text)
	if t.pending != nil && !t.read {
		return pendingNewUnread(t.path, *t.pending), nil
	}
	if present && !t.read && !blank {
		return Errorf("%s already exists and you have not read it in this run; read it first (read_file), or change parts of it with edit_file", t.path), nil
	}
	content := p.Content
	var notes []string
	if eol := editmatch.DominantEOL(t.text); present && eol == "\r\n" && editmatch.DominantEOL(content) == "\n" {
		content = editmatch.AdaptEOL(content, eol)
		notes = append(notes, "kept the file's CRLF line endings")
	}
	if t.pending != nil {
		if content == t.text {
			return Errorf("%s: this is exactly the content your earlier run %s proposed (still awaiting review); nothing to change", t.path, t.pending.RunID), nil
		}
		notes = append(notes, replacesNote(*t.pending))
	}
	if present && content == t.text {
		return Errorf("%s already has exactly this content; nothing to change", t.path), nil
	}
	env.stageText(t, content)
	change := FileChange{Path: t.abs, Before: t.text, After: content}
	if !present {
		change.Before = ""
		return env.diagnose(ctx, Result{Text: fmt.Sprintf("Created %s (%d lines)", t.path, countLines(content)), Summary: "created " + t.path}, change), nil
	}
	return env.diagnose(ctx, changeResult("Replaced", t, content, notes), change), nil
}

// countLines counts lines the way editors show them (a final line break
// does not start another line).
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := 1
	for i := 0; i < len(s)-1; i++ {
		if s[i] == '\n' {
			n++
		}
	}
	return n
}
