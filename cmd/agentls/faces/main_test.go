package faces_test

import (
	"testing"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestMain fails the package if any test leaves a goroutine behind, and
// removes the agentls binary the binary-driven tests build.
func TestMain(m *testing.M) { testwait.VerifyTestMain(runMain{m}) }

type runMain struct{ m *testing.M }

func (r runMain) Run() int { return lsptest.RunMain(r.m) }
