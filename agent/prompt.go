package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// EditorContext is the editor state a command was given in: the file, the
// selection and the diagnostics the user is looking at. It goes into the
// first user message, not the system prompt, so the system prompt stays
// byte-stable across runs (provider prompt caches).
type EditorContext struct {
	Path        string      // absolute path (or URI for untitled buffers)
	Range       *text.Range // selection; nil: none
	Selection   string      // selected text
	Diagnostics []Diagnostic
}

// Diagnostic is one problem the editor shows, in our own type so agent does
// not import the LSP protocol package.
type Diagnostic struct {
	Range    text.Range
	Severity string // "error", "warning", "information", "hint"
	Message  string
	Source   string // e.g. "compiler", "gopls"
	Code     string
}

// Caps on what the prompt embeds, so a huge rules file or selection cannot
// eat the context window.
const (
	maxRulesBytes     = 8 * 1024
	maxSelectionBytes = 20 * 1024
	maxDiagnostics    = 50
)

// rulesFiles are the project instruction files read from the first
// workspace folder, in this order.
var rulesFiles = []string{"AGENTS.md", filepath.Join(".agentls", "rules.md")}

// systemPromptCore is the fixed part of the system prompt. Keep it short:
// every request pays for it (see BenchmarkSystemPromptTokens).
const systemPromptCore = `You are agentls, a coding agent working in the user's editor. You act only through the tools. Edits are staged as proposals the user reviews; nothing is written until they accept.

Rules:
- Explore with glob, grep and list_dir; read only what you need (read_file with offset/limit for big files).
- Read a file before editing it. edit_file needs old_string copied exactly from the file, without read_file's line-number prefixes, and unique unless replace_all.
- A CONFLICT error means the file changed since you read it: use the diff it shows, or read again, then redo the edit.
- Keep changes minimal and in the project's style; do not touch unrelated code.
- When a tool fails, change your approach instead of repeating the same call.
- A rejection stating a lasting rule: you may propose it via remember.
- Finish with a short answer: what you changed and why, or the answer to the question. Do not paste whole files.`

// languageRule ends the rules when a language server serves the
// workspace. It is appended, not inserted, so the prompt of a run with a
// language server shares every byte of the rules before it with one
// without (provider prompt caches match on the prefix).
const languageRule = "\n- Find symbols with definition, references and symbols, not grep: exact, and far fewer tokens. Fix the problems your edits introduce (edit results and diagnostics list them) before finishing."

// taskLanguageRule is languageRule for a sub-agent, which cannot edit.
const taskLanguageRule = "\n- Find symbols with definition, references and symbols, not grep: exact, and far fewer tokens."

// planModeRules are added to the system prompt of a planning run.
const planModeRules = `

Plan mode: you cannot edit files in this run (only read-only tools are offered). Explore what you need, record the steps with todo_write, and finish with the plan as your answer: the files to change, what changes and why, in order. The user approves the plan before any edit is made.`

// systemPrompt is the run's system prompt: the core rules for its role,
// plan-mode rules, environment and rules files, then the skills listing
// (names and descriptions only).
func (r *runner) systemPrompt(view workspaceReader, now time.Time) string {
	core := systemPromptCore
	if r.role == roleTask {
		core = taskSystemCore
		if r.opts.Language {
			core += taskLanguageRule
		}
	} else {
		if r.opts.Language {
			core += languageRule
		}
		if r.opts.Mode == ModePlan {
			core += planModeRules
		}
	}
	s := buildSystemPromptCore(core, view, now, r.userRules)
	if l := r.env.Skills.Listing(); l != "" {
		s += "\n\n" + l
	}
	return s
}

// workspaceReader is what prompt assembly needs from the workspace view.
type workspaceReader interface {
	Folders() []string
	Read(path string) (workspace.Snapshot, error)
}

// buildSystemPrompt returns the system prompt: role and rules, workspace
// folders, OS, date, and the project's rules files (read through the view so
// an unsaved buffer counts, size-capped).
func buildSystemPrompt(view workspaceReader, now time.Time) string {
	return buildSystemPromptCore(systemPromptCore, view, now, "")
}

// buildSystemPromptCore assembles the prompt; userRules is the path of
// the user's own AGENTS.md ("" for none).
func buildSystemPromptCore(core string, view workspaceReader, now time.Time, userRules string) string {
	var b strings.Builder
	b.WriteString(core)
	b.WriteString("\n\nEnvironment:\n")
	var folders []string
	if view != nil {
		folders = view.Folders()
	}
	if len(folders) > 0 {
		fmt.Fprintf(&b, "- Workspace folders: %s (relative paths resolve against the first)\n", strings.Join(folders, ", "))
	}
	fmt.Fprintf(&b, "- OS: %s/%s\n- Date: %s\n", runtime.GOOS, runtime.GOARCH, now.Format("2006-01-02"))
	if rules := readRules(view, folders, userRules); rules != "" {
		b.WriteString("\nProject rules (from the repository; follow them):\n")
		b.WriteString(rules)
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// readRules concatenates the rules files of the first folder, then the
// user's own AGENTS.md (userRules, read from disk: it is outside the
// workspace), capped at maxRulesBytes in total. The project's come first
// so a large user file is what gets truncated, not the repository's.
// Each run reads them afresh, so an accepted remember proposal reaches
// the next run.
func readRules(view workspaceReader, folders []string, userRules string) string {
	var parts []string
	left := maxRulesBytes
	add := func(tag, text string) {
		body := strings.TrimSpace(text)
		if body == "" || left <= 0 {
			return
		}
		if len(body) > left {
			body = cutUTF8(body, left) + "\n[rules truncated]"
		}
		left -= len(body)
		parts = append(parts, fmt.Sprintf("<%s>\n%s\n</%s>", tag, body, tag))
	}
	if view != nil && len(folders) > 0 {
		for _, name := range rulesFiles {
			if snap, err := view.Read(filepath.Join(folders[0], name)); err == nil {
				add(filepath.ToSlash(name), snap.Text)
			}
		}
	}
	if userRules != "" {
		if text, err := readBounded(userRules, maxRulesBytes); err == nil {
			add("user AGENTS.md", text)
		}
	}
	return strings.Join(parts, "\n")
}

// UserRulesPath is the user's own AGENTS.md, included in every
// workspace's prompt: $XDG_CONFIG_HOME/agentls/AGENTS.md, else
// ~/.config/agentls/AGENTS.md; "" when neither is known. It sits beside
// the user's config.json and skills folder, by the same rule
// (statedir.ConfigDir), in the environment env (nil: os.Getenv).
func UserRulesPath(env func(string) string) string {
	dir := statedir.ConfigDir(env)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, tools.RulesFile)
}

// readBounded reads at most n bytes of a regular file (a FIFO or a huge
// file in the user's config folder cannot stall or flood a run).
func readBounded(path string, n int) (string, error) {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a readable regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read user rules: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(n)))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return strings.ToValidUTF8(string(b), ""), nil
}

// buildTaskMessage returns the first user message: the task and, when the
// command came from an editor, the file, selection and diagnostics.
// Positions are shown 1-based, like read_file's line numbers.
func buildTaskMessage(prompt string, ec *EditorContext, folders []string) string {
	if ec == nil || (ec.Path == "" && ec.Selection == "" && len(ec.Diagnostics) == 0) {
		return prompt
	}
	var b strings.Builder
	b.WriteString(prompt)
	b.WriteString(llm.EditorContextOpen) // replay ignores this block (llm.WithoutEditorContext)
	if ec.Path != "" {
		fmt.Fprintf(&b, "File: %s\n", displayPath(ec.Path, folders))
	}
	if ec.Range != nil {
		r := ec.Range
		fmt.Fprintf(&b, "Selection: line %d col %d to line %d col %d\n", r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1)
	}
	if ec.Selection != "" {
		sel := ec.Selection
		if len(sel) > maxSelectionBytes {
			sel = cutUTF8(sel, maxSelectionBytes) + "\n[selection truncated; read the file for the rest]"
		}
		fence := "```"
		for strings.Contains(sel, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "Selected text:\n%s\n%s\n%s\n", fence, sel, fence)
	}
	if n := len(ec.Diagnostics); n > 0 {
		b.WriteString("Diagnostics:\n")
		for i, d := range ec.Diagnostics {
			if i == maxDiagnostics {
				fmt.Fprintf(&b, "- … %d more\n", n-maxDiagnostics)
				break
			}
			sev := d.Severity
			if sev == "" {
				sev = "problem"
			}
			src := ""
			if d.Source != "" || d.Code != "" {
				src = " (" + strings.TrimSpace(d.Source+" "+d.Code) + ")"
			}
			fmt.Fprintf(&b, "- line %d col %d: %s: %s%s\n", d.Range.Start.Line+1, d.Range.Start.Character+1, sev, d.Message, src)
		}
	}
	b.WriteString(llm.EditorContextClose)
	return b.String()
}

// displayPath shows path relative to the first workspace folder holding it.
func displayPath(path string, folders []string) string {
	for _, f := range folders {
		if rel, err := filepath.Rel(f, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// cutUTF8 returns at most n bytes of s without splitting a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
