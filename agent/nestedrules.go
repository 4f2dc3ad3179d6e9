package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
)

// Nested AGENTS.md files (a subproject's own rules) reach the model as a
// note on the result of the first read or edit of a file below their
// directory, not in the system prompt: the prompt is fixed for the run
// and shared byte for byte with the next one (provider prompt caches),
// and most runs never go near most subprojects. Bounded per file and per
// run, so a tree full of rules files cannot eat the context window.
const (
	maxNestedRulesBytes = 4 * 1024
	maxNestedRulesTotal = 16 * 1024
)

// nestedRuleTools are the tools whose path argument names a file the
// agent works on.
var nestedRuleTools = map[string]bool{"read_file": true, "edit_file": true, "multi_edit": true, "write_file": true}

// nestedRules remembers which rules files a run has already been shown.
type nestedRules struct {
	mu    sync.Mutex
	shown map[string]bool
	used  int
}

// nestedRulesNote returns the note to append to a successful call's
// result: the AGENTS.md files between the first workspace folder
// (exclusive: the root's is in the system prompt) and the file's
// directory that this run has not seen yet, outermost first.
func (r *runner) nestedRulesNote(call llm.ToolCall) string {
	if !nestedRuleTools[call.Name] || r.env == nil || r.env.View == nil {
		return ""
	}
	var args struct {
		Path string `json:"path"`
	}
	if json.Unmarshal([]byte(call.Args), &args) != nil || args.Path == "" {
		return ""
	}
	folders := r.env.View.Folders()
	if len(folders) == 0 {
		return ""
	}
	abs, err := r.env.View.Resolve(args.Path)
	if err != nil {
		return ""
	}
	root := folders[0]
	rel, err := filepath.Rel(root, filepath.Dir(abs))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	var dirs []string
	dir := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, c)
		dirs = append(dirs, dir)
	}
	n := &r.nested
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.shown == nil {
		n.shown = map[string]bool{}
	}
	var b strings.Builder
	for _, d := range dirs {
		file := filepath.Join(d, tools.RulesFile)
		if n.shown[file] {
			continue
		}
		snap, err := r.env.View.Read(file)
		if err != nil {
			continue
		}
		n.shown[file] = true
		body := strings.TrimSpace(snap.Text)
		if body == "" {
			continue
		}
		name := filepath.ToSlash(r.env.Rel(file))
		left := min(maxNestedRulesBytes, maxNestedRulesTotal-n.used)
		if left <= 0 {
			fmt.Fprintf(&b, "\n\n[%s not shown: this run's budget for nested rules (%d KB) is spent; read it if it matters]", name, maxNestedRulesTotal/1024)
			continue
		}
		if len(body) > left {
			body = cutUTF8(body, left) + "\n[rules truncated; read the file for the rest]"
		}
		n.used += len(body)
		fmt.Fprintf(&b, "\n\nRules for %s/ (from %s; follow them for files there):\n<%s>\n%s\n</%s>", filepath.ToSlash(r.env.Rel(d)), name, name, body, name)
	}
	return b.String()
}
