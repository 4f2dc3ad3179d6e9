package agent

import (
	"testing"

	"github.com/agentls/agentls/internal/testwait"
)

// TestMain fails the package if any test leaves a goroutine behind (tool
// batches, model streams, HTTP connections).
func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }
