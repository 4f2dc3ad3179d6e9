// Package statedir is where agentls keeps what it remembers between runs
// (sessions, workspace trust, OAuth tokens, transcripts) and how those
// files are written: atomically and readable by the user only, since they
// hold code, conversations and credentials.
package statedir

import (
	"os"
	"path/filepath"

	"github.com/agentls/agentls/internal/atomicfile"
)

// Dir is $XDG_STATE_HOME/agentls, else $HOME/.local/state/agentls, in the
// environment env (nil: os.Getenv); "" when neither is set. A relative
// XDG_STATE_HOME is ignored, as the XDG spec says.
func Dir(env func(string) string) string {
	if env == nil {
		env = os.Getenv
	}
	if d := env("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentls")
	}
	if home := env("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "agentls")
	}
	return ""
}

// ConfigDir is $XDG_CONFIG_HOME/agentls, else $HOME/.config/agentls
// ($USERPROFILE when HOME is unset), in the environment env (nil:
// os.Getenv); "" when none is set. The user's config.json, AGENTS.md and
// skills folder sit there, found by this one rule. A relative
// XDG_CONFIG_HOME is ignored, as the XDG spec says.
func ConfigDir(env func(string) string) string {
	if env == nil {
		env = os.Getenv
	}
	if d := env("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentls")
	}
	home := env("HOME")
	if home == "" {
		home = env("USERPROFILE")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "agentls")
}

// WriteFile replaces path with data atomically (atomicfile.WriteFile:
// temporary file, fsync, rename, directory sync), creating its directory
// 0700 if missing. The file is 0600: state holds code, conversations and
// credentials.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o600)
}
