package lang

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// secretToken is planted in a file the user's secretPatterns hide.
const secretToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// secretModule is a Go module where secrets.go (a secret by the user's
// secretPatterns) uses util.go's Add and Label: a rename of Add would edit
// it, and changing Label breaks it with a message that quotes the token.
var secretModule = map[string]string{
	"go.mod":     "module example.com/m\n\ngo 1.22\n",
	"util.go":    "package main\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\n// Label names things.\ntype Label = string\n",
	"main.go":    "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n}\n",
	"secrets.go": "package main\n\nconst apiToken = \"" + secretToken + "\"\n\nvar _ = Add(3, 4)\n\nvar _ Label = apiToken\n",
}

func noToken(t *testing.T, what string, res tools.Result) {
	t.Helper()
	if strings.Contains(res.Text, secretToken) || strings.Contains(res.Summary, secretToken) {
		t.Fatalf("%s shows the model the secret:\n%s", what, res.Text)
	}
}

// TestGoplsSecretFiles: with gopls v0.21.1, nothing the language tools
// tell the model quotes a secret file: a rename that would edit it is
// refused with nothing staged, references name its lines without their
// text, workspace symbols leave it out, and the problems an edit
// introduces there (gopls quotes the constant's value) are counted, not
// quoted, in the edit result and in diagnostics' listing.
func TestGoplsSecretFiles(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, secretModule)
	cfgs := Resolve(nil, false, langtest.LookPath(t, "gopls"))
	s := newSetupPolicy(t, root, Options{Servers: cfgs, Wait: 30 * time.Second, Logger: testLogger()}, tools.Policy{SecretPatterns: []string{"secrets*.go"}})

	// Rename: gopls's edit touches secrets.go; refused, nothing staged.
	res := s.call(t, "rename", fmtArgs("path", "main.go", "line", 6, "symbol", "Add", "new_name", "Sum"))
	noToken(t, "rename", res)
	if !res.IsError || !strings.Contains(res.Text, "secrets.go, which looks like a secret") || !strings.Contains(res.Text, "nothing was staged") {
		t.Fatalf("rename into a secret file: %+v", res)
	}
	if files := s.env.Changes.Files(); len(files) != 0 {
		t.Fatalf("rename staged %v", files)
	}

	// The user has secrets.go open in the editor: the run syncs it to
	// gopls, which publishes its diagnostics (the baseline the edit's
	// problems are measured against below).
	secrets := filepath.Join(root, "secrets.go")
	s.env.View.Open(secrets, 1, secretModule["secrets.go"])

	// References: the secret file's line by number only.
	res = s.mustCall(t, "references", fmtArgs("path", "util.go", "line", 4, "symbol", "Add"))
	noToken(t, "references", res)
	wantEqual(t, "references", res.Text,
		"3 reference(s) in 3 file(s):\nmain.go\n  6: fmt.Println(Add(1, 2))\nsecrets.go\n  5\nutil.go\n  4: func Add(a, b int) int { return a + b }")

	// Workspace symbols: none from the secret file, and the model is told.
	res = s.mustCall(t, "symbols", fmtArgs("query", "apiToken"))
	noToken(t, "symbols", res)
	wantEqual(t, "symbols", res.Text, "no symbols match \"apiToken\" in the workspace\nnot shown: 1 symbol(s) in secrets.go, which looks like a secret file")
	res = s.call(t, "symbols", fmtArgs("path", "secrets.go"))
	if !res.IsError {
		t.Fatalf("outline of a secret file: %s", res.Text)
	}

	// An edit that breaks the secret file: gopls says `cannot use
	// apiToken (untyped string constant "ghp_…") as Label value`. The
	// model gets the count and the file; the editor's problems event
	// keeps the message (the user's own file, in the user's editor).
	waitPublished(t, s.m, "gopls", secrets)
	s.mustCall(t, "read_file", fmtArgs("path", "util.go"))
	res = s.mustCall(t, "edit_file", fmtArgs("path", "util.go", "old_string", "type Label = string", "new_string", "type Label = int"))
	noToken(t, "edit result", res)
	wantSuffix(t, "edit result", res.Text, "this change introduced 1 problem(s) in secrets.go, which looks like a secret file; their messages are not shown")
	quoted := false
	for _, fp := range res.Problems {
		for _, p := range fp.Items {
			quoted = quoted || (filepath.Base(fp.Path) == "secrets.go" && strings.Contains(p.Message, secretToken))
		}
	}
	if !quoted {
		t.Fatalf("gopls's message no longer quotes the token, so this test proves nothing: %+v", res.Problems)
	}

	// A secret file the model created itself: left out of diagnostics'
	// listing of the changed files, by name.
	s.mustCall(t, "write_file", fmtArgs("path", "secrets_new.go", "content", "package main\n\nconst other = \"hunter2-typed\"\n\nvar _ int = other\n"))
	res = s.mustCall(t, "diagnostics", fmtArgs())
	noToken(t, "diagnostics", res)
	if strings.Contains(res.Text, "hunter2-typed") {
		t.Fatalf("diagnostics quotes the secret file:\n%s", res.Text)
	}
	wantSuffix(t, "diagnostics", res.Text, "not shown: the diagnostics of secrets_new.go, which looks like a secret file (its contents are not shown to the model)")
	res = s.call(t, "diagnostics", fmtArgs("path", "secrets.go"))
	noToken(t, "diagnostics secrets.go", res)
	if !res.IsError {
		t.Fatalf("diagnostics of a secret file: %s", res.Text)
	}
}

// waitPublished waits until the running server name has published the
// diagnostics of the version of path it holds.
func waitPublished(t *testing.T, m *Manager, name, path string) {
	t.Helper()
	m.mu.Lock()
	var c *client
	for k, e := range m.clients {
		if k.name == name && e.c != nil {
			c = e.c
		}
	}
	m.mu.Unlock()
	if c == nil {
		t.Fatalf("no running %s", name)
	}
	_, v, open := c.docText(path)
	if !open {
		t.Fatalf("%s does not hold %s", name, path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
	defer cancel()
	if _, err := c.waitPublished(ctx, path, v, 0); err != nil {
		t.Fatalf("%s published nothing for %s: %v", name, path, err)
	}
}
