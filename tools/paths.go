package tools

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/internal/workspace"
)

// defaultSecretPatterns are the file names whose contents are never sent
// to the model unless Policy.AllowSecrets: environment files, private keys
// and the credential stores of curl/ftp (.netrc, _netrc on Windows), git's
// credential helper "store", PostgreSQL and PyPI, each of which holds
// passwords or tokens in plain text. They match the base name;
// Policy.SecretPatterns adds more (a pattern with a "/" matches the
// workspace-relative path instead). .npmrc is not here: projects commit it
// for registry settings, with tokens usually as ${NPM_TOKEN}; a user whose
// .npmrc holds a literal token adds it to secretPatterns.
var defaultSecretPatterns = [...]string{".env*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", "id_dsa*",
	".netrc", "_netrc", ".git-credentials", ".pgpass", ".pypirc"}

// resolve confines a model-supplied path. The error text (from the view)
// names the workspace folders and says how to fix the path.
func (env *Env) resolve(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", errors.New("path is empty; give a path relative to the workspace folder")
	}
	return env.View.Resolve(path)
}

// display is how a path is shown to the model: relative to the first
// workspace folder (the base for relative paths) when inside it, else
// absolute, so every path the model sees can be passed back as is.
func (env *Env) display(abs string) string {
	folders := env.View.Folders()
	if len(folders) > 0 {
		if rel, ok := workspace.RelTo(folders[0], abs); ok {
			return rel
		}
	}
	return abs
}

// Rel returns abs relative to the workspace folder containing it (abs
// itself when no folder holds it): the name a person or the model knows
// the file by, for transcripts and reports.
func (env *Env) Rel(abs string) string { return env.View.DisplayName(abs) }

// isSecret reports whether abs looks like a secret file that the policy
// keeps away from the model.
func (env *Env) isSecret(abs string) bool {
	if env.Policy.AllowSecrets {
		return false
	}
	base := filepath.Base(abs)
	for _, p := range defaultSecretPatterns {
		if ok, _ := doublestar.Match(p, base); ok {
			return true
		}
	}
	rel := env.Rel(abs)
	for _, p := range env.Policy.SecretPatterns {
		target := base
		if strings.Contains(p, "/") {
			target = rel
		}
		if ok, _ := doublestar.Match(p, target); ok {
			return true
		}
	}
	return false
}

// inGitDir reports whether abs is a .git directory or inside one: never
// written, whatever the model asks (workspace.InGitDir: any component,
// case-insensitive, trailing dots and spaces ignored).
func inGitDir(abs string) bool { return workspace.InGitDir(abs) }

// gitRedacted is text of abs as the model may see it. Files under .git
// hold credentials git wrote there, not code: a remote URL cloned as
// https://user:ghp_…@host/… (config, FETCH_HEAD), actions/checkout's
// extraheader "AUTHORIZATION: basic …". They stay readable (the model may
// need the remote's name), with those masked by redact.Text. Nothing under
// .git is ever written, so the ledger keeps the real text without an edit
// ever being matched against the masked one.
func gitRedacted(abs, text string) (string, bool) {
	if !inGitDir(abs) {
		return text, false
	}
	r := redact.Text(text)
	return r, r != text
}

// redactedNote tells the model why a .git file shows [REDACTED].
const redactedNote = "credentials in this file (URL user info, tokens) are shown as " + redact.Mask

// readError turns a View.Read failure into a tool error for the model.
func (env *Env) readError(path string, err error) Result {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("file not found: %s (use list_dir or glob to find the right path)", path)
	case errors.Is(err, workspace.ErrBinary):
		return Errorf("%s is a binary file (NUL bytes or invalid UTF-8); it cannot be read or edited as text", path)
	}
	return Errorf("%v", err)
}

// secretRefusal is the answer for a secret-looking file.
func secretRefusal(path string) Result {
	return Errorf("%s looks like a secret (environment file, private key or credentials file); its contents are not shown to the model. The user can allow it with the allowSecrets setting.", path)
}
