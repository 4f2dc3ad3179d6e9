package acpserver_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind
// (prompts, model streams, the SDK's readers, MCP servers).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
