package lang

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/tools/lang/langtest"
)

// realSetup is a setup over root with the real servers named.
func realSetup(t testing.TB, root string, servers ...string) *setup {
	t.Helper()
	cfgs := Resolve(nil, false, langtest.LookPath(t, servers...))
	if len(cfgs) != len(servers) {
		t.Fatalf("resolved %d servers, want %v", len(cfgs), servers)
	}
	return newSetup(t, root, Options{Servers: cfgs, Wait: 30 * time.Second, Logger: testLogger()})
}

func wantSuffix(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.HasSuffix(strings.TrimRight(got, "\n"), want) {
		t.Fatalf("%s:\n%s\nwant it to end with:\n%s", what, got, want)
	}
}

func wantEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s:\n%s\nwant:\n%s", what, got, want)
	}
}

var goModule = map[string]string{
	"go.mod":  "module example.com/m\n\ngo 1.22\n",
	"util.go": "package main\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
	"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n}\n",
}

// TestGopls drives gopls v0.21.1: navigation across files, problems an
// edit introduces (in the file and in the one it breaks) in gopls's own
// words, and a rename staged as a proposal.
func TestGopls(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, goModule)
	s := realSetup(t, root, "gopls")

	wantEqual(t, "definition", s.mustCall(t, "definition", fmtArgs("path", "main.go", "line", 6, "symbol", "Add")).Text,
		"util.go:4: func Add(a, b int) int { return a + b }")
	wantEqual(t, "references", s.mustCall(t, "references", fmtArgs("path", "util.go", "line", 4, "symbol", "Add")).Text,
		"2 reference(s) in 2 file(s):\nmain.go\n  6: fmt.Println(Add(1, 2))\nutil.go\n  4: func Add(a, b int) int { return a + b }")
	wantEqual(t, "symbols query", s.mustCall(t, "symbols", fmtArgs("query", "Add")).Text, "util.go:4 function Add")
	wantEqual(t, "outline", s.mustCall(t, "symbols", fmtArgs("path", "util.go")).Text, "util.go:\n4: function Add")

	// An undefined name: gopls's message in the same result.
	s.mustCall(t, "read_file", fmtArgs("path", "main.go"))
	res := s.mustCall(t, "edit_file", fmtArgs("path", "main.go", "old_string", "Add(1, 2)", "new_string", "Add(1, undefinedThing)"))
	wantSuffix(t, "edit result", res.Text, "main.go:6: undefined: undefinedThing")
	res = s.mustCall(t, "edit_file", fmtArgs("path", "main.go", "old_string", "undefinedThing", "new_string", "2"))
	wantSuffix(t, "fix result", res.Text, "\n\nno new problems")

	// A change that breaks another file: its problems come with it.
	s.mustCall(t, "read_file", fmtArgs("path", "util.go"))
	res = s.mustCall(t, "edit_file", fmtArgs("path", "util.go", "old_string", "func Add(a, b int) int { return a + b }", "new_string", "func Add(a, b string) string { return a + b }"))
	if !strings.Contains(res.Text, "main.go:6: cannot use 1 (untyped int constant) as string value in argument to Add") {
		t.Fatalf("cross-file result:\n%s", res.Text)
	}
	if n := s.run.Outstanding(); n == 0 {
		t.Fatal("no outstanding problems after breaking main.go")
	}
	res = s.mustCall(t, "edit_file", fmtArgs("path", "util.go", "old_string", "func Add(a, b string) string { return a + b }", "new_string", "func Add(a, b int) int { return a + b }"))
	wantSuffix(t, "revert result", res.Text, "no new problems")
	if n := s.run.Outstanding(); n != 0 {
		t.Fatalf("outstanding after the revert = %d", n)
	}

	// Rename across files, staged like an edit.
	res = s.mustCall(t, "rename", fmtArgs("path", "main.go", "line", 6, "symbol", "Add", "new_name", "Sum"))
	if !strings.HasPrefix(res.Text, "Renamed Add to Sum in 2 file(s):") || !strings.HasSuffix(res.Text, "no new problems") {
		t.Fatalf("rename result:\n%s", res.Text)
	}
	for _, f := range []string{"main.go", "util.go"} {
		st, ok := s.env.Changes.Get(root + "/" + f)
		if !ok || !strings.Contains(st.Text, "Sum(") || strings.Contains(st.Text, "Add(") {
			t.Fatalf("%s staged: %q", f, st.Text)
		}
	}
	// Navigation sees the staged text.
	wantEqual(t, "definition after rename", s.mustCall(t, "definition", fmtArgs("path", "main.go", "line", 6, "symbol", "Sum")).Text,
		"util.go:4: func Sum(a, b int) int { return a + b }")
	res = s.call(t, "rename", fmtArgs("path", "main.go", "line", 6, "symbol", "Sum", "new_name", "1bad name"))
	if !res.IsError || !strings.Contains(res.Text, "not an identifier") {
		t.Fatalf("bad new name: %+v", res)
	}
}

func testLogger() *slog.Logger {
	if os.Getenv("LANG_DEBUG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
