package agent

import (
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools"
)

// LimitsFromConfig maps the user's configuration onto run limits, so that
// lspserver and the CLI apply the same settings the same way. Fields the
// configuration does not cover keep their defaults.
func LimitsFromConfig(c config.Config) Limits {
	l := Limits{
		MaxTurns:                 c.MaxTurns,
		WallClock:                c.WallClock(),
		TokenBudget:              c.TokenBudget,
		MaxConsecutiveToolErrors: c.MaxConsecutiveToolErrors,
		RepeatStopAt:             c.MaxRepeatedCalls,
		ContextWindow:            c.Model.ContextWindow,
		TaskMaxTurns:             c.TaskMaxTurns,
		MaxToolCallsPerTurn:      c.MaxToolCallsPerTurn,
	}
	if c.TokenBudget == 0 { // the config's "unlimited"
		l.TokenBudget = -1
	}
	l.MaxCheckRounds = c.MaxCheckRounds
	if c.MaxCheckRounds == 0 { // the config's "report only"
		l.MaxCheckRounds = -1
	}
	if l.RepeatStopAt > 0 {
		// Warn two calls before stopping (3 then 5 by default), at least once.
		l.RepeatWarnAt = max(1, l.RepeatStopAt-2)
	}
	return l
}

// ChecksFromConfig converts the configured checks for the loop.
func ChecksFromConfig(c config.Config) []tools.Check {
	out := make([]tools.Check, 0, len(c.Checks))
	for _, ch := range c.Checks {
		out = append(out, tools.Check{Name: ch.Name, Command: ch.Command, Timeout: ch.Timeout(), Paths: ch.Paths})
	}
	return out
}
