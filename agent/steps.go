package agent

import (
	"encoding/json"
	"strings"

	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/internal/text"
)

// StepPhrase is a tool call in words ("reading main.go", "searching for
// TODO", "calling list_issues (github)"), clipped to width per argument:
// what editors show for a step (LSP $/progress, ACP tool-call titles),
// where the raw arguments read as noise. Invalid arguments get the generic
// wording.
func StepPhrase(tool string, args json.RawMessage, width int) string {
	// Paths, patterns and commands are the model's (or an MCP server's
	// tool names): they become progress text and permission titles on
	// every face, so they are escaped as all text for people is.
	return safetext.Line(stepPhrase(tool, args, width))
}

func stepPhrase(tool string, args json.RawMessage, width int) string {
	var a struct {
		Path        string `json:"path"`
		Pattern     string `json:"pattern"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Command     string `json:"command"`
		Query       string `json:"query"`
	}
	_ = json.Unmarshal(args, &a)
	clip := func(s string) string { return text.Clip(text.FirstLine(s), width) }
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	path := clip(a.Path)
	switch tool {
	case "read_file":
		return "reading " + or(path, "a file")
	case "list_dir":
		return "listing " + or(path, "the workspace")
	case "glob":
		return "finding files " + clip(a.Pattern)
	case "grep":
		return "searching for " + clip(a.Pattern)
	case "edit_file", "multi_edit":
		return "editing " + or(path, "a file")
	case "write_file":
		return "writing " + or(path, "a file")
	case "task":
		return "delegating: " + or(clip(a.Description), "a sub-task")
	case "todo_write":
		return "updating the plan"
	case "skill":
		return "loading skill " + clip(a.Name)
	case "run_command":
		return "running " + or(clip(a.Command), "a command")
	case "tool_search":
		return "looking for tools " + clip(a.Query)
	}
	if rest, ok := strings.CutPrefix(tool, "mcp__"); ok {
		server, name, _ := strings.Cut(rest, "__")
		return "calling " + name + " (" + server + ")"
	}
	return "calling " + tool
}
