package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// token is the credential the tests plant; no model-facing text may hold it.
const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// noSecret fails when text holds token or any of more.
func noSecret(t *testing.T, what, text string, more ...string) {
	t.Helper()
	for _, s := range append([]string{token}, more...) {
		if strings.Contains(text, s) {
			t.Fatalf("%s holds the secret %q:\n%s", what, s, text)
		}
	}
}

// TestCredentialFilesAreSecret: the credential stores of curl, git,
// PostgreSQL and PyPI are refused by read_file and skipped by grep by
// default, as .env is, and shown with allowSecrets.
func TestCredentialFilesAreSecret(t *testing.T) {
	files := map[string]string{
		".netrc":              "machine github.com login u password " + token + "\n",
		"win/_netrc":          "machine github.com login u password " + token + "\n",
		".git-credentials":    "https://u:" + token + "@github.com\n",
		"db/.pgpass":          "localhost:5432:*:u:" + token + "\n",
		".pypirc":             "[pypi]\npassword = " + token + "\n",
		"keep/notes.txt":      "nothing here\n",
		"keep/netrc.md":       "how to write a .netrc\n",
		"keep/.netrc.example": "machine example.com login you password changeme\n",
	}
	root := newWorkspace(t, files)
	env := newEnv(t, root, Policy{})
	for _, p := range []string{".netrc", "win/_netrc", ".git-credentials", "db/.pgpass", ".pypirc"} {
		msg := mustErr(t, call(t, env, "read_file", map[string]any{"path": p}), p+" looks like a secret", "allowSecrets")
		noSecret(t, "read_file "+p, msg)
	}
	if env.Ledger.Len() != 0 {
		t.Fatalf("refused reads recorded: %d", env.Ledger.Len())
	}
	res := mustOK(t, call(t, env, "grep", map[string]any{"pattern": "password|ghp_|machine"}))
	noSecret(t, "grep", res)
	if !strings.Contains(res, "5 secret-looking") {
		t.Fatalf("grep does not say it skipped the 5 files:\n%s", res)
	}
	// Names alike are not secrets: an example file and docs stay readable.
	mustOK(t, call(t, env, "read_file", map[string]any{"path": "keep/.netrc.example"}))
	mustOK(t, call(t, env, "read_file", map[string]any{"path": "keep/netrc.md"}))

	allowed := newEnv(t, root, Policy{AllowSecrets: true})
	if got := mustOK(t, call(t, allowed, "read_file", map[string]any{"path": ".netrc"})); !strings.Contains(got, token) {
		t.Fatalf("allowSecrets must show .netrc: %s", got)
	}
}

// gitConfig is a clone's .git/config with a token in the remote's URL (as
// `git clone https://user:token@…` leaves it) and actions/checkout's
// extraheader.
const gitConfig = `[core]
	repositoryformatversion = 0
[remote "origin"]
	url = https://octo:` + token + `@github.com/octo/repo.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[remote "mirror"]
	url = https://` + token + `@example.com/octo/repo.git
[http "https://github.com/"]
	extraheader = AUTHORIZATION: basic b2N0bzpzZWNyZXRiYXNpYw==
`

// TestGitDirCredentialsMasked: .git/config stays readable (the remote's
// host and path), with URL user info and the Authorization header masked
// in read_file, in grep's lines and in what grep matches; the ledger keeps
// the real text, and nothing under .git can be edited anyway.
func TestGitDirCredentialsMasked(t *testing.T) {
	root := newWorkspace(t, map[string]string{
		".git/config":     gitConfig,
		".git/FETCH_HEAD": "abc123\t\tbranch 'main' of https://octo:" + token + "@github.com/octo/repo\n",
		"src/remote.txt":  "https://example.com/plain\n",
	})
	env := newEnv(t, root, Policy{})
	got := mustOK(t, call(t, env, "read_file", map[string]any{"path": ".git/config"}))
	noSecret(t, "read_file .git/config", got, "b2N0bzpzZWNyZXRiYXNpYw==")
	for _, want := range []string{"url = https://[REDACTED]@github.com/octo/repo.git", "url = https://[REDACTED]@example.com/octo/repo.git", "[remote \"origin\"]", "are shown as [REDACTED]"} {
		if !strings.Contains(got, want) {
			t.Fatalf("read_file .git/config lacks %q:\n%s", want, got)
		}
	}
	rec, ok := env.Ledger.Lookup(filepath.Join(root, ".git/config"))
	if !ok || rec.Text != gitConfig {
		t.Fatalf("the ledger must hold the file as it is on disk: %+v", rec)
	}
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": ".git/config", "old_string": "[REDACTED]", "new_string": "x"}), ".git")

	// A script (read_file for a program) gets the masked text too.
	raw, _ := json.Marshal(map[string]any{"path": ".git/FETCH_HEAD"})
	data, err := ReadFile().Call(WithData(context.Background()), env, raw)
	if err != nil || data.IsError {
		t.Fatalf("read_file for a program: %v %+v", err, data)
	}
	b, _ := json.Marshal(data.Data)
	noSecret(t, "read_file data", data.Text+string(b))

	// grep shows masked lines, and a pattern on the credential finds
	// nothing: no line-by-line oracle for guessing it.
	lines := mustOK(t, call(t, env, "grep", map[string]any{"pattern": "url =", "path": ".git"}))
	noSecret(t, "grep url", lines)
	if !strings.Contains(lines, "https://[REDACTED]@github.com/octo/repo.git") {
		t.Fatalf("grep lines:\n%s", lines)
	}
	for _, pat := range []string{"ghp_", "octo:ghp", "basic b2N0"} {
		res := call(t, env, "grep", map[string]any{"pattern": pat, "path": ".git"})
		noSecret(t, "grep "+pat, res.Text, "b2N0bzpzZWNyZXRiYXNpYw==")
		if strings.Contains(res.Text, "config:") || strings.Contains(res.Text, "FETCH_HEAD:") {
			t.Fatalf("grep %q matched the masked credential:\n%s", pat, res.Text)
		}
	}
	// Outside .git, text is the file's own: nothing to mask there.
	if got := mustOK(t, call(t, env, "read_file", map[string]any{"path": "src/remote.txt"})); strings.Contains(got, "REDACTED") {
		t.Fatalf("read_file masked a file outside .git:\n%s", got)
	}
}

// TestStageComputedRefusesSecret: a computed change (a language server's
// rename) that would edit a secret file is refused whole, naming the file
// and none of its lines; nothing is staged.
func TestStageComputedRefusesSecret(t *testing.T) {
	root := newWorkspace(t, map[string]string{
		"main.go": "package main\n\nvar Key = 1\n",
		".env":    "KEY=" + token + "\n",
	})
	env := newEnv(t, root, Policy{})
	res := env.StageComputed(context.Background(), "Renamed KEY to K in", []FileChange{
		{Path: filepath.Join(root, "main.go"), Before: "package main\n\nvar Key = 1\n", After: "package main\n\nvar K = 1\n"},
		{Path: filepath.Join(root, ".env"), Before: "KEY=" + token + "\n", After: "K=" + token + "\n"},
	})
	msg := mustErr(t, res, ".env, which looks like a secret", "nothing was staged")
	noSecret(t, "refusal", msg)
	if files := env.Changes.Files(); len(files) != 0 {
		t.Fatalf("staged %v", files)
	}
}
