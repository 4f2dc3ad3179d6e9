package agent

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/lang"
	scripttool "github.com/agentls/agentls/tools/script"
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

// ScriptLimitsFromConfig maps the script.* settings onto the script
// tool's bounds (validated and capped by the configuration).
func ScriptLimitsFromConfig(c config.Config) scripttool.Limits {
	return scripttool.Limits{
		Steps:     uint64(max(c.Script.MaxSteps, 0)),
		WallClock: time.Duration(c.Script.TimeoutSeconds) * time.Second,
		Output:    c.Script.MaxOutputBytes,
		Calls:     c.Script.MaxCalls,
		Memory:    int64(c.Script.MemoryMiB) << 20,
	}
}

// ChecksFromConfig converts the configured checks for the loop.
func ChecksFromConfig(c config.Config) []tools.Check {
	out := make([]tools.Check, 0, len(c.Checks))
	for _, ch := range c.Checks {
		out = append(out, tools.Check{Name: ch.Name, Command: ch.Command, Timeout: ch.Timeout(), Paths: ch.Paths})
	}
	return out
}

// LanguageServers resolves the configuration's languageServers over the
// built-in entries (tools/lang, which the configuration does not depend
// on): built-ins whose program is on PATH, plus the user's own entries.
func LanguageServers(c config.Config) []lang.ServerConfig {
	if c.LanguageServers.Off {
		return nil
	}
	user := make(map[string]*lang.Entry, len(c.LanguageServers.Servers))
	for name, s := range c.LanguageServers.Servers {
		if s == nil {
			user[name] = nil
			continue
		}
		e := &lang.Entry{Command: s.Command, Extensions: s.Extensions, RootMarkers: s.RootMarkers, Env: s.Env}
		if s.InitializationOptions != nil {
			e.InitializationOptions, _ = json.Marshal(s.InitializationOptions)
		}
		user[name] = e
	}
	return lang.Resolve(user, false, nil)
}

// NewLanguageManager returns the manager of c's language servers for a
// front-end to keep (Setup.Lang) and close, or nil when no language server
// is available; nothing starts until a run needs it.
func NewLanguageManager(c config.Config, logger *slog.Logger) *lang.Manager {
	servers := LanguageServers(c)
	if len(servers) == 0 {
		return nil
	}
	return lang.NewManager(lang.Options{
		Servers:     servers,
		IdleTimeout: time.Duration(c.LanguageServerIdleSeconds) * time.Second,
		Wait:        time.Duration(c.LanguageServerWaitSeconds) * time.Second,
		Logger:      logger,
	})
}
