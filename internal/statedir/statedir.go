// Package statedir is where agentls keeps what it remembers between runs
// (sessions, workspace trust, OAuth tokens, transcripts) and how those
// files are written: atomically and readable by the user only, since they
// hold code, conversations and credentials.
package statedir

import (
	"os"
	"path/filepath"
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

// WriteFile replaces path with data through a temporary file in the same
// directory (created 0700 if missing), so a reader sees the old file or
// the new one, never a part. The file is 0600 and synced before the rename.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename: no such file, ignored
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
