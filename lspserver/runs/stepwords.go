package runs

import (
	"encoding/json"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// stepMessage is the $/progress report for a tool call, in words: editors
// show it in their status bar ("Agent: reading main.go"), where the raw
// arguments (`read_file {"path":"main.go"}`) read as noise. Unknown tools
// (MCP) are named with their server.
func stepMessage(tool string, args json.RawMessage) string {
	var a struct {
		Path        string `json:"path"`
		Pattern     string `json:"pattern"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Command     string `json:"command"`
		Query       string `json:"query"`
	}
	_ = json.Unmarshal(args, &a) // invalid arguments: the generic wording below
	clip := func(s string) string { return text.Clip(text.FirstLine(s), 60) }
	path := clip(a.Path)
	switch tool {
	case "read_file":
		return "reading " + orDefault(path, "a file")
	case "list_dir":
		return "listing " + orDefault(path, "the workspace")
	case "glob":
		return "finding files " + clip(a.Pattern)
	case "grep":
		return "searching for " + clip(a.Pattern)
	case "edit_file", "multi_edit":
		return "editing " + orDefault(path, "a file")
	case "write_file":
		return "writing " + orDefault(path, "a file")
	case "task":
		return "delegating: " + orDefault(clip(a.Description), "a sub-task")
	case "todo_write":
		return "updating the plan"
	case "skill":
		return "loading skill " + clip(a.Name)
	case "run_command":
		return "running " + orDefault(clip(a.Command), "a command")
	case "tool_search":
		return "looking for tools " + clip(a.Query)
	}
	if rest, ok := strings.CutPrefix(tool, "mcp__"); ok {
		server, name, _ := strings.Cut(rest, "__")
		return "calling " + name + " (" + server + ")"
	}
	return "calling " + tool
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
