package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/internal/text"
)

// Workspace trust. A workspace's .agentls/config.json arrives with the
// repository, so it is untrusted input: the keys in it that act on the
// user's behalf take effect only when LoadOptions.Trusted says the user
// trusts that file's current content (path + SHA-256). The rule, by key:
//
//   - Always applied (they only narrow what agentls does, or are harmless):
//     model.name (a model name on the user's own endpoint), model.temperature,
//     tools.secretPatterns (more files hidden: like every security list in
//     unionLists it only adds to the user's entries, never replaces them),
//     mcp.deferredToolShare,
//     preview.diagnostics,
//     mode "preview", tools.runCommand "off", tools.allowSecrets false, and
//     mcpServers entries with "disabled": true (they only turn a server off),
//     languageServers false and languageServers entries false (likewise).
//   - Limits (narrowingLimits) apply when they are lower than or equal to
//     the value they would replace (earlier sources, else the default):
//     lowering maxTurns is fine, raising it spends the user's money. For
//     tokenBudget and model.maxOutputTokens 0 means unlimited, so 0 is a
//     raise; for mcp.startupTimeoutSeconds 0 (do not wait) is the lowest.
//   - Everything else needs trust: model.baseURL (where the key and the
//     code go), model.apiKeyEnv and model.apiKey (which credential is sent),
//     model.replay and model.record (files read as the model's answers,
//     files written with what the model saw), mcpServers (processes and
//     connections), checks (commands run at the end of every run),
//     languageServers entries and languageServers true (language server
//     processes), mcp.readOnlyServers (more tools for sub-agents),
//     tools.runCommand "ask", tools.allowSecrets true, mode "apply", raised
//     limits, and any key not named above, so a key added later needs
//     trust until someone decides otherwise here.
//
// Withheld keys are dropped before merging: an untrusted model.baseURL is
// ignored, so the user's own endpoint (or none: "no model configured") is
// used, never the workspace's URL without a key. The user's key therefore
// only ever goes to an endpoint the user configured or trusted.

// Untrusted describes a workspace config file whose keys that act on the
// user's behalf were withheld: what the user is asked to trust.
type Untrusted struct {
	// File is the workspace config file's path.
	File string
	// SHA256 is the hex digest of the content that was read; trust is
	// granted to exactly this content.
	SHA256 string
	// Keys are the withheld keys, dotted (model.baseURL, mcpServers.NAME).
	Keys []string
	// Actions say in plain words what trusting the file would do: the URL
	// the key would go to, each command line it would run.
	Actions []string
}

// Untrusted returns the workspace files whose keys needing trust were
// withheld by Load, in folder order (nil when there are none).
func (c Config) Untrusted() []Untrusted { return slices.Clone(c.untrusted) }

// ContentHash is the digest Load and the trust store use for a file's
// content.
func ContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// safeKeys are applied from an untrusted workspace whatever their value.
var safeKeys = map[string]bool{
	"model.name":            true,
	"model.temperature":     true,
	"tools.secretPatterns":  true,
	"mcp.deferredToolShare": true,
	"preview.diagnostics":   true,
}

// unionLists are the security lists: arrays whose every entry narrows what
// agentls does (more files hidden). From an untrusted source they merge as
// a union with what earlier sources set, so a workspace file can add
// entries but never drop the user's; every array among safeKeys must be
// here (TestSafeArraysAreUnionLists).
var unionLists = map[string]bool{
	"tools.secretPatterns": true,
}

// union returns the entries of prev (an earlier source's array, or nil)
// followed by those of add that are not in it.
func union(prev any, add []any) []any {
	old, _ := prev.([]any)
	out := slices.Clone(old)
	for _, v := range add {
		if !slices.ContainsFunc(out, func(o any) bool { return reflect.DeepEqual(o, v) }) {
			out = append(out, v)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// narrowingValues are applied from an untrusted workspace only with these
// values.
var narrowingValues = map[string]any{
	"mode":               ModePreview,
	"tools.runCommand":   RunCommandOff,
	"tools.allowSecrets": false,
}

// What 0 means for a limit.
type zeroMeaning int

const (
	zeroInvalid   zeroMeaning = iota // 0 is rejected by validation
	zeroUnlimited                    // 0 lifts the limit: a raise
	zeroNarrowest                    // 0 is the tightest setting
)

// narrowingLimits are numeric limits applied from an untrusted workspace
// when they do not raise the limit.
var narrowingLimits = map[string]zeroMeaning{
	"maxTurns":                     zeroInvalid,
	"maxWallClockSeconds":          zeroInvalid,
	"tokenBudget":                  zeroUnlimited,
	"maxConsecutiveToolErrors":     zeroInvalid,
	"maxRepeatedCalls":             zeroInvalid,
	"maxConcurrentRuns":            zeroInvalid,
	"taskMaxTurns":                 zeroInvalid,
	"maxToolCallsPerTurn":          zeroInvalid,
	"model.contextWindow":          zeroInvalid,
	"model.maxOutputTokens":        zeroUnlimited,
	"model.requestTimeoutSeconds":  zeroInvalid,
	"model.maxAttempts":            zeroInvalid,
	"model.maxAnswerBytes":         zeroInvalid,
	"model.maxToolArgsBytes":       zeroInvalid,
	"tools.commandTimeoutSeconds":  zeroInvalid,
	"maxCheckRounds":               zeroNarrowest,
	"mcp.startupTimeoutSeconds":    zeroNarrowest,
	"client.requestTimeoutSeconds": zeroInvalid,
	"languageServerIdleSeconds":    zeroInvalid,
	"languageServerWaitSeconds":    zeroInvalid,
	"script.timeoutSeconds":        zeroInvalid,
	"script.maxSteps":              zeroInvalid,
	"script.memoryMiB":             zeroInvalid,
	"script.maxOutputBytes":        zeroInvalid,
	"script.maxCalls":              zeroInvalid,
}

// containers are the objects whose keys are judged one by one.
var containers = map[string]bool{"model": true, "tools": true, "mcp": true, "preview": true, "client": true, "script": true}

// gate removes from m (a cleaned workspace source) the keys that need
// trust and returns them by dotted path. current looks up the value a key
// has before this source is merged.
func gate(m map[string]any, current func(path string) (any, bool)) map[string]any {
	withheld := map[string]any{}
	var walk func(obj map[string]any, prefix string)
	walk = func(obj map[string]any, prefix string) {
		for _, k := range sortedKeys(obj) {
			v, p := obj[k], join(prefix, k)
			if v == nil {
				continue // null: "not set here", ignored by the merge
			}
			switch sub, isObj := v.(map[string]any); {
			case isObj && containers[p]:
				walk(sub, p)
				if len(sub) == 0 {
					delete(obj, k)
				}
				continue
			case p == "languageServers":
				gateLanguageServers(obj, k, v, withheld)
				continue
			case isObj && p == "mcpServers":
				for _, name := range sortedKeys(sub) {
					if entry, _ := sub[name].(map[string]any); entry["disabled"] == true {
						continue
					}
					withheld["mcpServers."+name] = sub[name]
					delete(sub, name)
				}
				if len(sub) == 0 {
					delete(obj, k)
				}
				continue
			}
			if keepUntrusted(p, v, current) {
				continue
			}
			withheld[p] = v
			delete(obj, k)
		}
	}
	walk(m, "")
	return withheld
}

func keepUntrusted(path string, v any, current func(string) (any, bool)) bool {
	if safeKeys[path] {
		return true
	}
	if want, ok := narrowingValues[path]; ok {
		if s, isStr := v.(string); isStr {
			return strings.EqualFold(s, want.(string)) || v == want
		}
		return v == want
	}
	zero, ok := narrowingLimits[path]
	if !ok {
		return false
	}
	n, isNum := v.(float64)
	if !isNum || n != math.Trunc(n) || n < 0 {
		return false
	}
	if n == 0 {
		return zero == zeroNarrowest // else unlimited or invalid: never narrower
	}
	cur, ok := current(path)
	if !ok {
		return false
	}
	c, _ := cur.(float64)
	if zero == zeroUnlimited && c == 0 {
		return true // anything is narrower than unlimited
	}
	return n <= c
}

// currentValue returns the value at a dotted path in merged, else in the
// defaults, as a JSON-decoded value.
func currentValue(merged map[string]any, defaults map[string]any) func(string) (any, bool) {
	return func(path string) (any, bool) {
		for _, src := range []map[string]any{merged, defaults} {
			if v, ok := lookup(src, path); ok {
				return v, true
			}
		}
		return nil, false
	}
}

func lookup(m map[string]any, path string) (any, bool) {
	parts := strings.Split(path, ".")
	var cur any = m
	for _, p := range parts {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Bounds of what a trust prompt shows, so a hostile file cannot push the
// real command lines out of view (newlines or megabytes in an env key).
const (
	maxActions      = 20   // actions listed; the rest are counted
	maxActionBytes  = 1000 // one action, command line included
	maxEnvKeysShown = 8    // env variable names shown per server
	maxNameBytes    = 60   // one env key, server name or key path
)

// describe says what trusting would do, for the prompt: one line per
// action, control characters escaped (safetext.Line, $'…' quoting for
// command words), each bounded, at most maxActions of them. keyEnv is the
// variable the API key would come from once trusted.
func describe(withheld map[string]any, keyEnv string) []string {
	out := describeAll(withheld, keyEnv)
	for i, a := range out {
		out[i] = safetext.Bound(safetext.Line(a), maxActionBytes)
	}
	if len(out) > maxActions {
		out = append(out[:maxActions-1], fmt.Sprintf("… and %d more actions (read the file to see them all)", len(out)-maxActions+1))
	}
	return out
}

// displayKey is a key path or name as a prompt shows it: one line,
// bounded.
func displayKey(k string) string { return safetext.Bound(safetext.Line(k), maxNameBytes) }

func describeAll(withheld map[string]any, keyEnv string) []string {
	var out []string
	if v, ok := withheld["model.apiKeyEnv"].(string); ok && strings.TrimSpace(v) != "" {
		keyEnv = strings.TrimSpace(v)
	}
	key := "your API key (from $" + keyEnv + ")"
	if _, ok := withheld["model.apiKey"]; ok {
		key = "the API key written in this file"
	}
	if u, ok := withheld["model.baseURL"].(string); ok {
		out = append(out, fmt.Sprintf("send %s, your prompts and the code the agent reads to %s", key, redact.URL(strings.TrimSpace(u))))
	} else if _, ok := withheld["model.apiKeyEnv"]; ok {
		out = append(out, "send "+key+" to your model endpoint")
	} else if _, ok := withheld["model.apiKey"]; ok {
		out = append(out, "send "+key+" to your model endpoint")
	}
	for _, p := range slices.Sorted(maps.Keys(withheld)) {
		v := withheld[p]
		switch {
		case p == "model.baseURL" || p == "model.apiKeyEnv" || p == "model.apiKey":
		case strings.HasPrefix(p, "mcpServers."):
			out = append(out, describeServer(strings.TrimPrefix(p, "mcpServers."), v))
		case p == "languageServers":
			out = append(out, "turn language servers back on (they start the language server programs on your PATH)")
		case strings.HasPrefix(p, "languageServers."):
			out = append(out, describeLanguageServer(strings.TrimPrefix(p, "languageServers."), v))
		case p == "tools.runCommand":
			out = append(out, fmt.Sprintf("offer the model run_command (%v: each command still asks you)", v))
		case p == "tools.allowSecrets":
			out = append(out, "show secret-looking files (.env*, private keys, .netrc and other credential files) to the model")
		case p == "mode":
			out = append(out, fmt.Sprintf("set mode %v (edits reach your buffers without review)", v))
		case p == "model.replay":
			out = append(out, fmt.Sprintf("answer runs from the recorded model responses in %v instead of your model", v))
		case p == "model.record":
			out = append(out, fmt.Sprintf("write every model response of a run to %v", v))
		case p == "checks":
			out = append(out, describeChecks(v)...)
		case p == "mcp.readOnlyServers":
			out = append(out, fmt.Sprintf("let sub-agents use read-only tools of the MCP servers %v", fmtValue(v)))
		default:
			if _, limit := narrowingLimits[p]; limit {
				out = append(out, fmt.Sprintf("raise %s to %v", p, fmtJSON(v)))
			} else {
				out = append(out, fmt.Sprintf("set %s to %v", p, fmtJSON(v)))
			}
		}
	}
	return out
}

// describeChecks says which commands the checks would run, one line each.
func describeChecks(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, item := range list {
		e, _ := item.(map[string]any)
		name, _ := e["name"].(string)
		cmd, _ := e["command"].(string)
		out = append(out, fmt.Sprintf("run the command %q at the end of every run that changes files (check %q)", cmd, name))
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("set checks to %v", fmtJSON(v)))
	}
	return out
}

// describeServer is one MCP server entry in words: the exact command line,
// or the URL it would connect to.
func describeServer(name string, v any) string {
	e, _ := v.(map[string]any)
	var out string
	if url, _ := e["url"].(string); url != "" {
		out = fmt.Sprintf("connect to MCP server \"%s\" at %s", displayKey(name), safetext.Line(redact.URL(url)))
	} else {
		cmd, _ := e["command"].(string)
		words := []string{safetext.ShellQuote(cmd)}
		args, _ := e["args"].([]any)
		for _, a := range args {
			s, _ := a.(string)
			words = append(words, safetext.ShellQuote(s))
		}
		line := strings.Join(words, " ")
		out = fmt.Sprintf("run the command %s (MCP server \"%s\")", line, displayKey(name))
		if env, _ := e["env"].(map[string]any); len(env) > 0 {
			keys := slices.Sorted(maps.Keys(env))
			shown := text.FirstOf(len(keys), maxEnvKeysShown, func(i int) string { return displayKey(safetext.ShellQuote(keys[i])) })
			out += " with the environment variables " + strings.Join(shown, ", ") + " set by the file"
		}
	}
	if vars := envRefs(e); len(vars) > 0 {
		out += " and pass it your environment variables " + strings.Join(vars, ", ")
	}
	if o, _ := e["oauth"].(map[string]any); o != nil {
		out += describeOAuth(o)
	}
	return out
}

// describeOAuth says which of the user's credentials an MCP server entry's
// oauth settings would send, and where from: a workspace entry naming
// OPENAI_API_KEY as its client secret would send the key to the server's
// authorization server.
func describeOAuth(o map[string]any) string {
	var parts []string
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return strings.TrimSpace(v) }
	if v := str(o, "clientSecretEnv"); v != "" {
		parts = append(parts, "send your environment variable "+displayKey(safetext.ShellQuote(v))+" as its client secret")
	}
	if v := str(o, "privateKeyFile"); v != "" {
		parts = append(parts, "sign its sign-in with the private key "+safetext.Bound(safetext.ShellQuote(v), maxNameBytes*2))
	}
	if idp, _ := o["idp"].(map[string]any); idp != nil {
		where := str(idp, "tokenEndpoint")
		if where == "" {
			where = str(idp, "issuer")
		}
		where = safetext.Bound(safetext.Line(redact.URL(where)), maxActionBytes/4)
		if v := str(idp, "idTokenEnv"); v != "" {
			parts = append(parts, "send your ID token from the environment variable "+displayKey(safetext.ShellQuote(v))+" to the identity provider "+where)
		}
		if v := str(idp, "idTokenFile"); v != "" {
			parts = append(parts, "send your ID token from the file "+safetext.Bound(safetext.ShellQuote(v), maxNameBytes*2)+" to the identity provider "+where)
		}
		if v := str(idp, "clientSecretEnv"); v != "" {
			parts = append(parts, "send your environment variable "+displayKey(safetext.ShellQuote(v))+" to the identity provider as a client secret")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// envRef is a ${VAR} or ${VAR:-default} reference, expanded from the
// user's environment when a server starts.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`)

// envRefs lists the environment variables a server entry would receive
// (in its command, args, env, url or headers), sorted: a workspace entry
// with "Bearer ${OPENAI_API_KEY}" would hand your key to its server.
func envRefs(e map[string]any) []string {
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			for _, m := range envRef.FindAllStringSubmatch(x, -1) {
				seen[m[1]] = true
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(e)
	return slices.Sorted(maps.Keys(seen))
}

func fmtJSON(v any) string {
	if f, ok := v.(float64); ok && f == math.Trunc(f) {
		return strconv.FormatInt(int64(f), 10)
	}
	return fmtValue(v)
}

// gateLanguageServers withholds what a workspace's languageServers would
// start: entries other than false (each a command run for the user), and
// true (which undoes the user's false). false, for all or one, only turns
// servers off and is kept.
func gateLanguageServers(obj map[string]any, k string, v any, withheld map[string]any) {
	switch x := v.(type) {
	case bool:
		if x {
			withheld["languageServers"] = x
			delete(obj, k)
		}
	case map[string]any:
		for _, name := range sortedKeys(x) {
			if x[name] == false {
				continue
			}
			withheld["languageServers."+name] = x[name]
			delete(x, name)
		}
		if len(x) == 0 {
			delete(obj, k)
		}
	}
}

// describeLanguageServer is a languageServers entry in words: the command
// line it would run.
func describeLanguageServer(name string, v any) string {
	e, _ := v.(map[string]any)
	cmd, _ := e["command"].([]any)
	var words []string
	for _, c := range cmd {
		s, _ := c.(string)
		words = append(words, safetext.ShellQuote(s))
	}
	line := strings.Join(words, " ")
	if line == "" {
		line = "its built-in command with your settings"
	}
	if env, _ := e["env"].(map[string]any); len(env) > 0 {
		line = strings.Join(slices.Sorted(maps.Keys(env)), "=… ") + "=… " + line
	}
	return fmt.Sprintf("run the command %s (language server %q)", line, name)
}
