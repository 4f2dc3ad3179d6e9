package agent

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind (tool
// batches, model streams, HTTP connections).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
