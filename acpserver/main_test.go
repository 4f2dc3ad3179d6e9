package acpserver_test

import (
	"testing"

	"github.com/agentls/agentls/internal/testwait"
)

// TestMain fails the package if any test leaves a goroutine behind
// (prompts, model streams, the SDK's readers, MCP servers).
func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }
