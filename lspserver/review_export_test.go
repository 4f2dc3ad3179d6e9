package lspserver

import (
	"time"

	"github.com/agentls/agentls/tools"
)

// Review seams for external tests (review_*_test.go), which drive the real
// server over lsptest pipes but need proposals before a run makes them.

// StagePreview stages f as run runID's proposal, as a preview run does.
func StagePreview(s *Server, runID string, f tools.StagedFile) { s.review.Stage(runID, f) }

// SetVerifyTimeout bounds how long accept waits for an applied edit to
// show in the buffer (tests of editors that never show it).
func SetVerifyTimeout(s *Server, d time.Duration) { s.review.SetVerifyTimeout(d) }

// SetVerifyGrace bounds how long the accept command itself waits for an
// applied edit to show before answering verifying:true.
func SetVerifyGrace(s *Server, d time.Duration) { s.review.SetVerifyGrace(d) }

// RecordProblems records what a language server found in runID's
// proposal for fp.Path, as a run's diagnose step does.
func RecordProblems(s *Server, runID string, fp tools.FileProblems) { s.review.Problems(runID, fp) }
