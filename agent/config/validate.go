package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/tools/mcp"
)

// ErrNoModel is wrapped by ModelError's errors, so callers can tell "not
// configured yet" from other failures.
var ErrNoModel = errors.New("no model configured")

// validate checks values after merging. An invalid value is reset to its
// default and reported as an error naming the key, where it was set, and
// what is allowed. Invalid MCP server entries are dropped with a warning so
// the rest of agentls keeps working.
func validate(c Config, origin map[string]string) (Config, []error, []string) {
	d := Defaults()
	var errs []error
	var warns []string
	bad := func(key string, got any, want string) {
		where := ""
		if o := origin[key]; o != "" {
			where = " (set in " + o + ")"
		}
		errs = append(errs, fmt.Errorf("%s: %v is not valid%s; %s", key, fmtValue(got), where, want))
	}
	if c.Mode != ModePreview && c.Mode != ModeApply {
		bad("mode", c.Mode, `use "preview" or "apply"`)
		c.Mode = d.Mode
	}
	if c.Tools.RunCommand != RunCommandOff && c.Tools.RunCommand != RunCommandAsk {
		bad("tools.runCommand", c.Tools.RunCommand, `use "off" or "ask"`)
		c.Tools.RunCommand = d.Tools.RunCommand
	}
	positive := []struct {
		key      string
		v, def   *int
		min      int
		zeroNote string
	}{
		{"maxTurns", &c.MaxTurns, &d.MaxTurns, 1, ""},
		{"maxWallClockSeconds", &c.MaxWallClockSeconds, &d.MaxWallClockSeconds, 1, ""},
		{"tokenBudget", &c.TokenBudget, &d.TokenBudget, 0, " (0 means unlimited)"},
		{"maxConsecutiveToolErrors", &c.MaxConsecutiveToolErrors, &d.MaxConsecutiveToolErrors, 1, ""},
		{"maxRepeatedCalls", &c.MaxRepeatedCalls, &d.MaxRepeatedCalls, 1, ""},
		{"maxConcurrentRuns", &c.MaxConcurrentRuns, &d.MaxConcurrentRuns, 1, ""},
		{"taskMaxTurns", &c.TaskMaxTurns, &d.TaskMaxTurns, 1, ""},
		{"maxToolCallsPerTurn", &c.MaxToolCallsPerTurn, &d.MaxToolCallsPerTurn, 1, ""},
		{"model.contextWindow", &c.Model.ContextWindow, &d.Model.ContextWindow, 1024, ""},
		{"model.maxOutputTokens", &c.Model.MaxOutputTokens, &d.Model.MaxOutputTokens, 0, " (0 leaves it to the provider)"},
		{"model.requestTimeoutSeconds", &c.Model.RequestTimeoutSeconds, &d.Model.RequestTimeoutSeconds, 1, ""},
		{"model.maxAttempts", &c.Model.MaxAttempts, &d.Model.MaxAttempts, 1, ""},
		{"model.maxAnswerBytes", &c.Model.MaxAnswerBytes, &d.Model.MaxAnswerBytes, 1024, ""},
		{"model.maxToolArgsBytes", &c.Model.MaxToolArgsBytes, &d.Model.MaxToolArgsBytes, 1024, ""},
		{"tools.commandTimeoutSeconds", &c.Tools.CommandTimeoutSeconds, &d.Tools.CommandTimeoutSeconds, 1, ""},
		{"mcp.startupTimeoutSeconds", &c.MCP.StartupTimeoutSeconds, &d.MCP.StartupTimeoutSeconds, 0, " (0 means runs do not wait)"},
		{"client.requestTimeoutSeconds", &c.Client.RequestTimeoutSeconds, &d.Client.RequestTimeoutSeconds, 1, ""},
		{"maxCheckRounds", &c.MaxCheckRounds, &d.MaxCheckRounds, 0, " (0 runs the checks once and only reports them)"},
		{"languageServerIdleSeconds", &c.LanguageServerIdleSeconds, &d.LanguageServerIdleSeconds, 1, ""},
		{"languageServerWaitSeconds", &c.LanguageServerWaitSeconds, &d.LanguageServerWaitSeconds, 1, ""},
	}
	for _, p := range positive {
		if *p.v < p.min {
			bad(p.key, *p.v, fmt.Sprintf("use a whole number of at least %d%s", p.min, p.zeroNote))
			*p.v = *p.def
		}
	}
	for _, r := range scriptRanges(&c, &d) {
		if *r.v < r.min || *r.v > r.max {
			bad(r.key, *r.v, fmt.Sprintf("use a whole number from %d to %d%s", r.min, r.max, r.note))
			*r.v = *r.def
		}
	}
	validCompletion(&c, &d, bad)
	if t := c.Model.Temperature; t != nil && (*t < 0 || *t > 2) {
		bad("model.temperature", *t, "use a number from 0 to 2, or leave it unset")
		c.Model.Temperature = nil
	}
	if s := c.MCP.DeferredToolShare; s < 0 || s > 1 {
		bad("mcp.deferredToolShare", s, "use a number from 0 to 1")
		c.MCP.DeferredToolShare = d.MCP.DeferredToolShare
	}
	c.Model.BaseURL = strings.TrimSpace(c.Model.BaseURL)
	c.Model.Name = strings.TrimSpace(c.Model.Name)
	if n := c.Model.Name; n != "" && !llm.ValidModelName(n) {
		bad("model.name", safetext.Bound(n, 80), "use a model name the endpoint lists: no control or bidi characters, at most 256 bytes")
		c.Model.Name = ""
	}
	if len(c.Model.Choices) > 0 {
		var keep []string
		for _, n := range c.Model.Choices {
			if n = strings.TrimSpace(n); llm.ValidModelName(n) {
				keep = append(keep, n)
			} else if n != "" {
				bad("model.choices", safetext.Bound(n, 80), "use model names the endpoint lists: no control or bidi characters, at most 256 bytes")
			}
		}
		c.Model.Choices = keep
	}
	if b := c.Model.BaseURL; b != "" {
		if u, err := url.Parse(b); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("model.baseURL", redact.URL(b), "use an http(s) URL such as https://api.openai.com/v1 or http://localhost:11434/v1")
			c.Model.BaseURL = ""
		}
	}
	if c.Model.APIKeyEnv == "" {
		c.Model.APIKeyEnv = DefaultAPIKeyEnv
	}
	var patterns []string
	for _, p := range c.Tools.SecretPatterns {
		if !doublestar.ValidatePattern(p) {
			bad("tools.secretPatterns", p, "use a glob such as **/*.pem or config/secrets/**")
			continue
		}
		patterns = append(patterns, p)
	}
	c.Tools.SecretPatterns = patterns
	c.Checks, errs = validChecks(c.Checks, origin["checks"], errs)
	for _, name := range sortedKeys(anyMap(c.MCPServers)) {
		if msg := checkServer(c.MCPServers[name]); msg != "" {
			where := ""
			if o := origin["mcpServers."+name]; o != "" {
				where = " (set in " + o + ")"
			}
			warns = append(warns, fmt.Sprintf("mcpServers.%s%s: %s; this server is skipped", name, where, msg))
			delete(c.MCPServers, name)
		}
	}
	warns = append(warns, checkLanguageServers(&c, origin)...)
	return c, errs, warns
}

// scriptRange is one bound of the script tool with its allowed values.
type scriptRange struct {
	key      string
	v, def   *int
	min, max int
	note     string
}

// scriptRanges are the script.* bounds. The ceilings keep a setting from
// turning a bound off: an hour of interpreter, 30 s of pure computation,
// 4 GiB per interpreter (two run at once), 1 MiB of output for the model
// (whose tool results are cut at 50 KB anyway), 100,000 calls.
func scriptRanges(c, d *Config) []scriptRange {
	return []scriptRange{
		{"script.timeoutSeconds", &c.Script.TimeoutSeconds, &d.Script.TimeoutSeconds, 1, 3600, " (seconds)"},
		{"script.maxSteps", &c.Script.MaxSteps, &d.Script.MaxSteps, 1000, 2_000_000_000, ""},
		{"script.memoryMiB", &c.Script.MemoryMiB, &d.Script.MemoryMiB, 32, 4096, " (MiB)"},
		{"script.maxOutputBytes", &c.Script.MaxOutputBytes, &d.Script.MaxOutputBytes, 256, 1 << 20, ""},
		{"script.maxCalls", &c.Script.MaxCalls, &d.Script.MaxCalls, 1, 100_000, ""},
	}
}

// validChecks drops the checks that cannot run (no name, no command, a
// repeated name, a bad glob), each with an error naming it.
func validChecks(checks []Check, origin string, errs []error) ([]Check, []error) {
	where := ""
	if origin != "" {
		where = " (set in " + origin + ")"
	}
	var out []Check
	seen := map[string]bool{}
	for i, ch := range checks {
		ch.Name, ch.Command = strings.TrimSpace(ch.Name), strings.TrimSpace(ch.Command)
		why := ""
		switch {
		case ch.Name == "":
			why = `it needs a "name"`
		case seen[ch.Name]:
			why = fmt.Sprintf("the name %q is used twice", ch.Name)
		case ch.Command == "":
			why = `it needs a "command" (a shell command line)`
		case ch.TimeoutSeconds < 0:
			why = `"timeoutSeconds" must be positive`
		}
		for _, p := range ch.Paths {
			if why == "" && !doublestar.ValidatePattern(p) {
				why = fmt.Sprintf("%q in \"paths\" is not a valid glob (use one such as **/*.go)", p)
			}
		}
		if why != "" {
			errs = append(errs, fmt.Errorf("checks[%d]%s: %s; this check is skipped", i, where, why))
			continue
		}
		seen[ch.Name] = true
		out = append(out, ch)
	}
	return out, errs
}

// checkServer explains what is wrong with an MCP server entry, or "".
func checkServer(s mcp.ServerConfig) string {
	if s.Disabled {
		return ""
	}
	switch s.Type {
	case "", "stdio":
		if s.Command == "" {
			if s.URL != "" {
				return `it has a "url" but no "type"; add "type": "http" or "sse"`
			}
			return `it needs a "command" (stdio) or "type" and "url" (remote)`
		}
	case "sse", "http", "streamable-http":
		u, err := url.Parse(s.URL)
		if s.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Sprintf("type %q needs an http(s) \"url\"", s.Type)
		}
		if s.OAuth != nil {
			if err := s.OAuth.Validate(); err != nil {
				return err.Error()
			}
		}
	default:
		return fmt.Sprintf(`unknown "type" %q; use "stdio", "sse" or "http"`, s.Type)
	}
	return ""
}

// ModelError returns nil when a model endpoint is configured, else an error
// (wrapping ErrNoModel) telling the user exactly what to set.
func (c Config) ModelError() error {
	if c.Model.Replay != "" { // a recording needs no endpoint
		return nil
	}
	var missing []string
	if c.Model.BaseURL == "" {
		missing = append(missing, "base URL")
	}
	if c.Model.Name == "" {
		missing = append(missing, "name")
	}
	if len(missing) == 2 && c.APIKey() != "" {
		// Only a key is set (typically OPENAI_API_KEY exported for other
		// tools). A key does not say which server gets the code, so there is
		// deliberately no default endpoint even then: the same variable
		// holds keys for Azure, proxies and OpenAI-compatible hosts, and
		// guessing would send the workspace to a server the user never
		// named. Say exactly which two settings complete it.
		src := "model.apiKey"
		if c.Model.APIKey == "" {
			src = c.Model.APIKeyEnv
		}
		return fmt.Errorf("%w: %s is set, but a key alone does not say which server and model to use: "+
			"the model base URL and name are not set. For OpenAI set OPENAI_BASE_URL=https://api.openai.com/v1 "+
			"and AGENTLS_MODEL to a model of yours (e.g. gpt-4.1); for another server its /v1 URL and model name. "+
			`Or set model.baseURL and model.name in your editor's agentls settings or in %s as {"model": {"baseURL": "…", "name": "…"}}%s`,
			ErrNoModel, src, userFileHint(), c.untrustedNote("model.baseURL"))
	}
	if len(missing) > 0 {
		verb := "is"
		if len(missing) > 1 {
			verb = "are"
		}
		return fmt.Errorf("%w: the model %s %s not set. Set %s in your editor's agentls settings "+
			`(agentls.model.baseURL, agentls.model.name) or in %s as {"model": {"baseURL": "…", "name": "…"}}, `+
			"or with the environment variables %s. Any OpenAI-compatible server works: "+
			"https://api.openai.com/v1 with OPENAI_API_KEY, or a local one such as Ollama at http://localhost:11434/v1 (no key needed)%s",
			ErrNoModel, strings.Join(missing, " and "), verb, strings.Join(settingKeys(missing), " and "),
			userFileHint(), strings.Join(envNames(missing), " and "), c.untrustedNote("model.baseURL"))
	}
	if c.APIKey() == "" && needsKey(c.Model.BaseURL) {
		return fmt.Errorf("%w: %s needs an API key; set the environment variable %s (or model.apiKeyEnv to the variable that holds it)",
			ErrNoModel, redact.URL(c.Model.BaseURL), c.Model.APIKeyEnv)
	}
	return nil
}

func settingKeys(missing []string) []string {
	var out []string
	for _, m := range missing {
		if m == "base URL" {
			out = append(out, "model.baseURL")
		} else {
			out = append(out, "model.name")
		}
	}
	return out
}

func envNames(missing []string) []string {
	var out []string
	for _, m := range missing {
		if m == "base URL" {
			out = append(out, "OPENAI_BASE_URL")
		} else {
			out = append(out, "AGENTLS_MODEL")
		}
	}
	return out
}

func userFileHint() string {
	return "~/.config/agentls/config.json"
}

// needsKey reports hosted APIs that always require a key.
func needsKey(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "api.openai.com", "openrouter.ai", "api.groq.com", "api.mistral.ai", "api.deepseek.com":
		return true
	}
	return false
}

func fmtValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func anyMap[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k := range m {
		out[k] = nil
	}
	return out
}

// untrustedNote explains that an untrusted workspace file sets key, or "".
func (c Config) untrustedNote(key string) string {
	for _, u := range c.untrusted {
		if slices.Contains(u.Keys, key) {
			return fmt.Sprintf(". %s sets %s, which is ignored until you trust that file", u.File, key)
		}
	}
	return ""
}
