package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// LanguageServers is the languageServers key: the language servers agentls
// starts itself, as an LSP client, to check the agent's staged edits and
// to navigate (docs/language-servers.md). Entries merge over the built-in
// ones (gopls, pyright, typescript, rust-analyzer, clangd) by name.
//
// In JSON it is false (every language server off), true (the built-ins,
// the default), or an object of entries by name where an entry false turns
// that server off.
type LanguageServers struct {
	// Off turns every language server off ("languageServers": false).
	Off bool
	// Servers are the entries by name; a nil entry is false (off).
	Servers map[string]*LanguageServer
}

// LanguageServer is one languageServers entry. Fields left out keep the
// built-in entry's value of the same name.
type LanguageServer struct {
	// Command is the program and its arguments, e.g. ["gopls"].
	Command []string `json:"command,omitempty"`
	// Extensions are the file extensions served, e.g. [".go"].
	Extensions []string `json:"extensions,omitempty"`
	// RootMarkers name files whose nearest directory (inside the workspace
	// folder) is the server's root, e.g. ["go.mod"].
	RootMarkers []string `json:"rootMarkers,omitempty"`
	// InitializationOptions go to the server in initialize.
	InitializationOptions map[string]any `json:"initializationOptions,omitempty"`
	// Env adds variables to the server's environment.
	Env map[string]string `json:"env,omitempty"`
}

// MarshalJSON writes false, or the entries with false for those off.
func (l LanguageServers) MarshalJSON() ([]byte, error) {
	if l.Off {
		return []byte("false"), nil
	}
	m := make(map[string]any, len(l.Servers))
	for k, v := range l.Servers {
		if v == nil {
			m[k] = false
		} else {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads false, true, null or an object of entries (each an
// object or false).
func (l *LanguageServers) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "null", "true":
		*l = LanguageServers{}
		return nil
	case "false":
		*l = LanguageServers{Off: true}
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("languageServers: expected false or an object of servers: %w", err)
	}
	out := LanguageServers{Servers: make(map[string]*LanguageServer, len(raw))}
	for name, v := range raw {
		switch strings.TrimSpace(string(v)) {
		case "false":
			out.Servers[name] = nil
			continue
		case "null", "true":
			continue
		}
		var e LanguageServer
		if err := json.Unmarshal(v, &e); err != nil {
			return fmt.Errorf("languageServers.%s: %w", name, err)
		}
		out.Servers[name] = &e
	}
	*l = out
	return nil
}

var (
	languageServersType = reflect.TypeFor[LanguageServers]()
	languageServerType  = reflect.TypeFor[LanguageServer]()
)

// cleanLanguageServers checks a languageServers value: false, true, or an
// object whose entries are false or LanguageServer objects.
func cleanLanguageServers(v any, path string, warn func(string)) (any, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, name := range sortedKeys(x) {
			p := join(path, name)
			switch e := x[name].(type) {
			case nil:
			case bool:
				if !e {
					out[name] = false
				}
			case map[string]any:
				if cv, ok := clean(e, languageServerType, p, warn); ok {
					out[name] = cv
				}
			default:
				warn(fmt.Sprintf("%s: expected an object or false, got %s (ignored)", p, jsonKind(e)))
			}
		}
		return out, true
	}
	warn(fmt.Sprintf("%s: expected false or an object of servers, got %s (ignored)", display(path), jsonKind(v)))
	return nil, false
}

// mergeLanguageServers folds a source's languageServers value into dst:
// entries replace by name; false turns everything off and stays off
// against later objects (an object after false, say a workspace turning
// one server off, must not turn the others back on); only true turns
// servers back on.
func mergeLanguageServers(dst map[string]any, src any) {
	cur, hasCur := dst["languageServers"]
	switch s := src.(type) {
	case bool:
		dst["languageServers"] = s
	case map[string]any:
		if hasCur && cur == false {
			return
		}
		m, _ := cur.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for _, k := range slices.Sorted(maps.Keys(s)) {
			m[k] = s[k]
		}
		dst["languageServers"] = m
	}
}

// checkLanguageServers drops entries that cannot start: an entry for a
// name that is not built in needs a command and extensions.
func checkLanguageServers(c *Config, origin map[string]string) []string {
	var warns []string
	for _, name := range slices.Sorted(maps.Keys(c.LanguageServers.Servers)) {
		e := c.LanguageServers.Servers[name]
		if e == nil || BuiltinLanguageServer(name) || (len(e.Command) > 0 && len(e.Extensions) > 0) {
			continue
		}
		where := ""
		if o := origin["languageServers."+name]; o != "" {
			where = " (set in " + o + ")"
		}
		warns = append(warns, fmt.Sprintf(`languageServers.%s%s: a server that is not built in needs "command" and "extensions"; it is skipped`, name, where))
		delete(c.LanguageServers.Servers, name)
	}
	return warns
}

// BuiltinLanguageServer reports the names of the built-in entries, whose
// fields may be left out.
func BuiltinLanguageServer(name string) bool {
	switch name {
	case "gopls", "pyright", "typescript", "rust-analyzer", "clangd":
		return true
	}
	return false
}
