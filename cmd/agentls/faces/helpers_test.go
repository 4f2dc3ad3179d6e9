package faces_test

import (
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/agent/revert"
)

const revertOrig = "# title\nhello\nlast\n"

// editAndCreate edits line 2 of a.txt and creates NEW.md.
func editAndCreate(answer string) llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(r.LastUser(), "what changed?") {
			return llmtest.Text("noted")
		}
		switch {
		case !r.HasToolResult("c1"):
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`)
		case !r.HasToolResult("c2"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "c2", Name: "edit_file", Args: `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`},
				llmtest.Call{ID: "c3", Name: "write_file", Args: `{"path":"NEW.md","content":"new\n"}`})
		}
		return llmtest.Text(answer)
	}
}

// reverts is the revert snapshot store of h's state directory.
func reverts(h *acptest.Harness) *revert.Store {
	return revert.NewStore(filepath.Join(h.State, "agentls", "reverts"))
}
