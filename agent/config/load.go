package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/statedir"
)

// LoadOptions says where Load looks.
type LoadOptions struct {
	// UserFile overrides the user config path; when set, the file must
	// exist. Empty: $XDG_CONFIG_HOME/agentls/config.json, else
	// $HOME/.config/agentls/config.json, skipped when missing.
	UserFile string
	// Folders are the workspace folders (paths or file:// URIs), first
	// folder first; each may hold .agentls/config.json.
	Folders []string
	// Init is initializationOptions or the settings of
	// workspace/didChangeConfiguration (see package doc for the shapes).
	Init json.RawMessage
	// Env reads environment variables; nil: os.Getenv.
	Env func(string) string
	// Trusted reports whether the user trusts a workspace config file with
	// this content (ContentHash). nil trusts no workspace file: its keys
	// that act on the user's behalf are withheld (see trust.go) and listed
	// by Config.Untrusted.
	Trusted func(file, sha256 string) bool
}

// UserFilePath is the default user config path for env (nil: os.Getenv),
// or "" when neither XDG_CONFIG_HOME nor a home directory is known.
func UserFilePath(env func(string) string) string {
	dir := statedir.ConfigDir(env)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "config.json")
}

// WorkspaceFile is where a folder's config lives.
func WorkspaceFile(folder string) string {
	return filepath.Join(folderPath(folder), ".agentls", "config.json")
}

// Load reads every source and returns the merged configuration, warnings
// for the user (unknown keys, ignored values, risky workspace settings),
// and an error for files that cannot be read or parsed and for invalid
// values. Even with an error the Config is usable: a broken source is
// skipped and an invalid value is left at its default, so a server can
// report the error and carry on.
func Load(opts LoadOptions) (Config, []string, error) {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	l := &loader{merged: map[string]any{}, origin: map[string]string{}, trusted: opts.Trusted}

	userFile, explicit := opts.UserFile, opts.UserFile != ""
	if !explicit {
		userFile = UserFilePath(env)
	}
	if userFile != "" {
		l.file(userFile, explicit, false)
	}
	// Apply folders last to first so that the first folder wins.
	for _, f := range slices.Backward(opts.Folders) {
		l.file(WorkspaceFile(f), false, true)
	}
	if len(bytes.TrimSpace(opts.Init)) > 0 {
		section, err := Section(opts.Init)
		if err != nil {
			l.errs = append(l.errs, fmt.Errorf("editor settings (initializationOptions/didChangeConfiguration): %w", err))
		} else if section != nil {
			l.source("editor settings", section, "")
		}
	}
	l.envFill(env)

	cfg := Defaults()
	raw, _ := json.Marshal(l.merged) // merged holds decoded JSON: always marshals
	if err := json.Unmarshal(raw, &cfg); err != nil {
		// clean() checked every value's type, so this is a broken invariant.
		l.errs = append(l.errs, fmt.Errorf("config: merging sources: %w", err))
	}
	if strings.TrimSpace(cfg.Model.APIKeyEnv) == "" {
		cfg.Model.APIKeyEnv = DefaultAPIKeyEnv
	}
	cfg.envKey = strings.TrimSpace(env(cfg.Model.APIKeyEnv))
	if k := strings.TrimSpace(cfg.Completion.APIKeyEnv); k != "" {
		cfg.completionKey = strings.TrimSpace(env(k))
	}
	for _, u := range l.untrusted {
		u.Actions = describe(u.withheld, cfg.Model.APIKeyEnv)
		cfg.untrusted = append(cfg.untrusted, u.Untrusted)
	}
	// Folders were applied last to first; report them first to last.
	slices.Reverse(cfg.untrusted)
	if len(opts.Folders) > 0 { // cassettes named relative to the workspace
		for _, p := range []*string{&cfg.Model.Replay, &cfg.Model.Record} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(opts.Folders[0], *p)
			}
		}
	}
	cfg, verrs, vwarn := validate(cfg, l.origin)
	l.warnings = append(l.warnings, vwarn...)
	l.errs = append(l.errs, verrs...)
	return cfg, l.warnings, errors.Join(l.errs...)
}

// Section extracts the agentls settings object from initializationOptions
// or didChangeConfiguration settings: {"settings": {"agentls": X}},
// {"settings": X}, {"agentls": X} or X itself. null gives nil.
func Section(raw json.RawMessage) (map[string]any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected an object, got %s", jsonKind(v))
	}
	if inner, ok := obj["settings"].(map[string]any); ok {
		obj = inner
	}
	if inner, ok := obj["agentls"].(map[string]any); ok {
		obj = inner
	}
	return obj, nil
}

// loader accumulates sources.
type loader struct {
	merged    map[string]any
	origin    map[string]string // dotted key path → source label that set it
	warnings  []string
	errs      []error
	trusted   func(file, sum string) bool
	untrusted []withheldFile
}

// withheldFile is an untrusted workspace file and what was withheld.
type withheldFile struct {
	Untrusted
	withheld map[string]any
}

// file reads one config file. A missing file is skipped unless required.
func (l *loader) file(path string, required, workspace bool) {
	data, err := readRegular(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return
	}
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("config file %s: %w", path, err))
		return
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		l.errs = append(l.errs, fmt.Errorf("config file %s is not valid JSON: %s", path, describeJSONError(data, err)))
		return
	}
	if v == nil {
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		l.errs = append(l.errs, fmt.Errorf("config file %s: expected a JSON object, got %s", path, jsonKind(v)))
		return
	}
	sum := ""
	if workspace {
		path, sum = canonical(path), ContentHash(data)
	}
	l.source(path, obj, sum)
}

// gate withholds the keys of an untrusted workspace file that act on the
// user's behalf (trust.go), with one warning naming them.
func (l *loader) gate(path, sum string, m map[string]any) {
	withheld := gate(m, currentValue(l.merged, defaultsMap()))
	if len(withheld) == 0 {
		return
	}
	keys := slices.Sorted(maps.Keys(withheld))
	for i, k := range keys {
		keys[i] = displayKey(k) // names from the file: shown, so one line each
	}
	l.untrusted = append(l.untrusted, withheldFile{Untrusted: Untrusted{File: path, SHA256: sum, Keys: keys}, withheld: withheld})
	l.warnings = append(l.warnings, fmt.Sprintf("%s: ignoring %s until you trust this file: they act on your behalf "+
		"(endpoint, credentials, commands or looser tool settings) and this workspace's content has not been trusted "+
		"(the editor asks; agentls run and mcp ask on a terminal or take --trust-workspace)", path, strings.Join(keys, ", ")))
}

// defaultsMap is Defaults() as decoded JSON, for comparing limits.
func defaultsMap() map[string]any {
	raw, _ := json.Marshal(Defaults()) // a plain struct: always marshals
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// source checks one source against the schema and merges it. sum is the
// content hash of a workspace file ("" for other sources), whose keys that
// need trust are withheld unless the file is trusted.
func (l *loader) source(label string, obj map[string]any, sum string) {
	warn := func(msg string) { l.warnings = append(l.warnings, label+": "+msg) }
	cleaned, _ := clean(obj, configType, "", warn)
	m, _ := cleaned.(map[string]any)
	if m == nil {
		return
	}
	if sum != "" {
		dropWorkspaceSecrets(m, warn)
	}
	untrusted := sum != "" && (l.trusted == nil || !l.trusted(label, sum))
	if untrusted {
		l.gate(label, sum, m)
	}
	l.merge(l.merged, m, "", label, untrusted)
}

// merge folds src into dst. Objects merge recursively except mcpServers
// entries, which replace by name; anything else replaces, except that an
// untrusted source's security lists (unionLists) only add to what earlier
// sources set: a cloned repository's "secretPatterns": [] must not unhide
// the user's own patterns.
func (l *loader) merge(dst, src map[string]any, path, label string, untrusted bool) {
	for k, v := range src {
		p := join(path, k)
		if v == nil {
			continue
		}
		if path == "" && k == "languageServers" {
			mergeLanguageServers(dst, v)
			l.origin[p] = label
			if m, ok := v.(map[string]any); ok {
				for name := range m {
					l.origin[p+"."+name] = label
				}
			}
			continue
		}
		sub, isObj := v.(map[string]any)
		if isObj && path != "mcpServers" {
			d, ok := dst[k].(map[string]any)
			if !ok {
				d = map[string]any{}
				dst[k] = d
			}
			l.merge(d, sub, p, label, untrusted)
			continue
		}
		if list, isList := v.([]any); isList && untrusted && unionLists[p] {
			v = union(dst[k], list)
		}
		dst[k] = v
		l.origin[p] = label
	}
}

// envFill applies environment variables to keys no source set.
func (l *loader) envFill(env func(string) string) {
	model, _ := l.merged["model"].(map[string]any)
	if model == nil {
		model = map[string]any{}
	}
	for _, e := range []struct{ name, key string }{{"OPENAI_BASE_URL", "baseURL"}, {"AGENTLS_MODEL", "name"}} {
		if s, _ := model[e.key].(string); s != "" {
			continue
		}
		if v := strings.TrimSpace(env(e.name)); v != "" {
			model[e.key] = v
			l.origin["model."+e.key] = "environment variable " + e.name
		}
	}
	if len(model) > 0 {
		l.merged["model"] = model
	}
}

// describeJSONError adds a line and column to a JSON syntax error.
func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return err.Error()
	}
	line, col := 1, 1
	for _, b := range data[:min(int(syn.Offset), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

// folderPath accepts a path or a file:// URI.
func folderPath(folder string) string {
	if strings.HasPrefix(folder, "file://") {
		if u, err := url.Parse(folder); err == nil {
			p := u.Path
			if len(p) >= 3 && p[0] == '/' && p[2] == ':' { // file:///C:/x on Windows
				p = p[1:]
			}
			return filepath.FromSlash(p)
		}
	}
	return folder
}

// dropWorkspaceSecrets removes literal secrets from a workspace file's MCP
// server entries (oauth.clientSecret), trusted or not: the file is shared
// with the repository, so a secret in it is already leaked, and agentls
// will not make that a working setup. The variable that holds the secret
// is named instead (oauth.clientSecretEnv).
func dropWorkspaceSecrets(m map[string]any, warn func(string)) {
	servers, _ := m["mcpServers"].(map[string]any)
	for _, name := range sortedKeys(servers) {
		entry, _ := servers[name].(map[string]any)
		oauth, _ := entry["oauth"].(map[string]any)
		if _, ok := oauth["clientSecret"]; ok {
			delete(oauth, "clientSecret")
			warn(fmt.Sprintf("mcpServers.%s.oauth.clientSecret: ignored: a secret is never read from a workspace file (it is shared "+
				"with the repository); put it in an environment variable and name it in oauth.clientSecretEnv", displayKey(name)))
		}
	}
}
