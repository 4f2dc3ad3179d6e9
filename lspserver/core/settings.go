package core

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"

	"go.lsp.dev/protocol"
)

// settings keeps the user's agentls configuration as the editor sent it:
// initializationOptions and the latest workspace/didChangeConfiguration
// (both take the same object, docs/protocol.md "Configuration"). It stays raw
// JSON; agent/config owns the schema and the merges (config.MergeSettings).
type settings struct {
	mu        sync.Mutex
	init      json.RawMessage
	latest    json.RawMessage
	listeners []func(json.RawMessage)
}

// InitializationOptions returns initialize's initializationOptions (nil if
// none were sent).
func (s *Server) InitializationOptions() json.RawMessage {
	s.config.mu.Lock()
	defer s.config.mu.Unlock()
	return slices.Clone(s.config.init)
}

// Settings returns the agentls settings of the latest
// workspace/didChangeConfiguration: the value of settings.agentls when
// present, else the whole settings object; nil if none was received.
func (s *Server) Settings() json.RawMessage {
	s.config.mu.Lock()
	defer s.config.mu.Unlock()
	return slices.Clone(s.config.latest)
}

// OnSettingsChange registers fn to run (on the read loop, so it must be
// quick and must not call the client) after each didChangeConfiguration
// that carried settings, with the new Settings value.
func (s *Server) OnSettingsChange(fn func(json.RawMessage)) {
	s.config.mu.Lock()
	defer s.config.mu.Unlock()
	s.config.listeners = append(s.config.listeners, fn)
}

func (c *settings) setInitOptions(raw []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if IsNull(raw) {
		c.init = nil
		return
	}
	c.init = slices.Clone(raw)
}

// setSettings stores didChangeConfiguration's settings. A null or absent
// value (clients using the pull model send it) keeps the previous settings.
func (c *settings) setSettings(raw []byte) {
	if IsNull(raw) {
		return
	}
	val := json.RawMessage(slices.Clone(raw))
	var obj map[string]json.RawMessage
	if json.Unmarshal(val, &obj) == nil {
		if sub, ok := obj["agentls"]; ok && !IsNull(sub) {
			val = sub
		}
	}
	c.mu.Lock()
	c.latest = val
	listeners := slices.Clone(c.listeners)
	c.mu.Unlock()
	for _, fn := range listeners {
		fn(slices.Clone(val))
	}
}

// IsNull reports whether raw is absent, blank or JSON null.
func IsNull(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// CleanAbs makes a path absolute and clean (rootPath may be relative in
// theory; the view needs absolute folders).
func CleanAbs(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// DidChangeConfiguration is workspace/didChangeConfiguration: the settings
// are stored and the OnSettingsChange listeners run.
func (s *Server) DidChangeConfiguration(_ context.Context, p *protocol.DidChangeConfigurationParams) error {
	s.config.setSettings(p.Settings)
	s.ActionsChanged() // after the listeners: what they derive from settings is in place
	return nil
}
