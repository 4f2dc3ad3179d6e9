package runs

import (
	"encoding/json"

	"github.com/agentls/agentls/agent"
)

// stepMessage is the $/progress report for a tool call, in words
// (agent.StepPhrase): editors show it in their status bar ("Agent: reading
// main.go").
func stepMessage(tool string, args json.RawMessage) string {
	return agent.StepPhrase(tool, args, 60)
}
