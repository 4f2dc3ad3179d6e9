package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

const goSrc = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"hello\")\n}\n"

// readAll reads paths in env so edits pass the lock.
func readAll(t *testing.T, env *Env, paths ...string) {
	t.Helper()
	for _, p := range paths {
		mustOK(t, call(t, env, "read_file", map[string]any{"path": p}))
	}
}

func TestEditFileGolden(t *testing.T) {
	root := newWorkspace(t, map[string]string{
		"main.go":  goSrc,
		"crlf.txt": "alpha\r\nbeta\r\ngamma\r\n",
		"ind.py":   "def f():\n    if x:\n        y()\n    return 1\n",
	})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "main.go", "crlf.txt", "ind.py")
	cases := []struct {
		golden string
		tool   string
		args   map[string]any
	}{
		{"edit_exact.txt", "edit_file", map[string]any{"path": "main.go", "old_string": "import \"fmt\"", "new_string": "import (\n\t\"fmt\"\n\t\"os\"\n)"}},
		{"edit_ambiguous.txt", "edit_file", map[string]any{"path": "main.go", "old_string": "fmt.Println(\"hello\")", "new_string": "x"}},
		{"edit_replace_all.txt", "edit_file", map[string]any{"path": "main.go", "old_string": "\"hello\"", "new_string": "\"bye\"", "replace_all": true}},
		{"edit_crlf.txt", "edit_file", map[string]any{"path": "crlf.txt", "old_string": "beta\ngamma\n", "new_string": "BETA\nGAMMA\nDELTA\n"}},
		{"edit_indent.txt", "edit_file", map[string]any{"path": "ind.py", "old_string": "if x:\n    y()", "new_string": "if x:\n    y()\n    z()"}},
		{"edit_not_found.txt", "edit_file", map[string]any{"path": "ind.py", "old_string": "def g():", "new_string": "x"}},
		{"multi_edit.txt", "multi_edit", map[string]any{"path": "ind.py", "edits": []map[string]any{
			{"old_string": "def f():", "new_string": "def f(x):"},
			{"old_string": "return 1", "new_string": "return 2"},
		}}},
		{"multi_edit_fail.txt", "multi_edit", map[string]any{"path": "ind.py", "edits": []map[string]any{
			{"old_string": "return 2", "new_string": "return 3"},
			{"old_string": "no such text", "new_string": "x"},
		}}},
		{"write_new.txt", "write_file", map[string]any{"path": "pkg/new.go", "content": "package pkg\n"}},
		{"write_replace.txt", "write_file", map[string]any{"path": "crlf.txt", "content": "one\ntwo\n"}},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			res := call(t, env, c.tool, c.args)
			out := res.Text
			if res.IsError {
				out = "ERROR: " + out
			}
			golden(t, c.golden, out+"\n")
		})
	}
	// Nothing reached the disk; everything is staged.
	if readFileT(t, filepath.Join(root, "main.go")) != goSrc {
		t.Fatal("edits must not write to disk")
	}
	if got := stagedText(t, env, root, "crlf.txt"); got != "one\r\ntwo\r\n" {
		t.Fatalf("write_file must keep CRLF: %q", got)
	}
	if got := stagedText(t, env, root, "ind.py"); got != "def f(x):\n    if x:\n        y()\n        z()\n    return 2\n" {
		t.Fatalf("failed multi_edit must change nothing: %q", got)
	}
}

func TestEditFileRules(t *testing.T) {
	root := newWorkspace(t, map[string]string{"a.txt": "one\ntwo\n", "empty.txt": "", "b.txt": "keep\n"})
	env := newEnv(t, root, Policy{})

	// Never read: refused; creating is allowed.
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "1"}), "have not read a.txt", "read it first")
	mustErr(t, call(t, env, "write_file", map[string]any{"path": "a.txt", "content": "x"}), "already exists", "read it first")
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "new/file.txt", "old_string": "", "new_string": "created\n"}))
	if got := stagedText(t, env, root, "new/file.txt"); got != "created\n" {
		t.Fatalf("created text %q", got)
	}
	// Editing the file it created works without a read (it is its own).
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "new/file.txt", "old_string": "created", "new_string": "changed"}))
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "missing.txt", "old_string": "x", "new_string": "y"}), "file not found")
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "nothing.txt", "old_string": "", "new_string": ""}), "nothing to create")

	readAll(t, env, "a.txt", "empty.txt", "b.txt")
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "one"}), "identical")
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "a.txt", "old_string": "", "new_string": "x"}), "old_string is empty")
	// An edit that would empty the file is refused; write_file may.
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "b.txt", "old_string": "keep\n", "new_string": ""}), "leave the file empty")
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "b.txt", "content": ""}))
	// Filling an empty file with an empty old_string.
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "empty.txt", "old_string": "", "new_string": "filled\n"}))
	// A no-op after line-ending adaptation is reported, not staged.
	crlf := newWorkspace(t, map[string]string{"c.txt": "a\r\nb\r\n"})
	env2 := newEnv(t, crlf, Policy{})
	readAll(t, env2, "c.txt")
	mustErr(t, call(t, env2, "edit_file", map[string]any{"path": "c.txt", "old_string": "a\nb", "new_string": "a\r\nb"}), "changes nothing")
	if len(env2.Changes.Files()) != 0 {
		t.Fatal("a no-op must not be staged")
	}
}

func TestEditRefusesBinaryAndGit(t *testing.T) {
	root := newWorkspace(t, map[string]string{"bin.dat": "a\x00b", ".git/config": "[core]\n"})
	env := newEnv(t, root, Policy{})
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "bin.dat", "old_string": "a", "new_string": "b"}), "binary")
	mustErr(t, call(t, env, "write_file", map[string]any{"path": ".git/config", "content": "x"}), ".git")
	mustErr(t, call(t, env, "write_file", map[string]any{"path": ".git/hooks/pre-commit", "content": "x"}), ".git")
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": ".git/new", "old_string": "", "new_string": "x"}), ".git")
	// Case-insensitive file systems (macOS, Windows) open .git/config for
	// any of these spellings.
	for _, p := range []string{".GIT/config", ".Git/hooks/pre-commit", "sub/.gIt/config", ".git./config"} {
		mustErr(t, call(t, env, "write_file", map[string]any{"path": p, "content": "x"}), ".git")
	}
	if len(env.Changes.Files()) != 0 {
		t.Fatal("nothing may be staged")
	}
}

func TestMultiEditAllOrNothing(t *testing.T) {
	root := newWorkspace(t, map[string]string{"a.txt": "a b c\n"})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "a.txt")
	mustErr(t, call(t, env, "multi_edit", map[string]any{"path": "a.txt", "edits": []map[string]any{
		{"old_string": "a", "new_string": "A"},
		{"old_string": "zzz", "new_string": "Z"},
	}}), "edit 2 of 2 failed", "no edit was applied")
	if _, ok := env.Changes.Get(filepath.Join(root, "a.txt")); ok {
		t.Fatal("a failed multi_edit must stage nothing")
	}
	// Later edits see earlier ones.
	out := mustOK(t, call(t, env, "multi_edit", map[string]any{"path": "a.txt", "edits": []map[string]any{
		{"old_string": "a", "new_string": "x"},
		{"old_string": "x b", "new_string": "y"},
	}}))
	if got := stagedText(t, env, root, "a.txt"); got != "y c\n" {
		t.Fatalf("got %q (%s)", got, out)
	}
	mustErr(t, call(t, env, "multi_edit", map[string]any{"path": "a.txt", "edits": []map[string]any{}}), "no edits")
}

func TestEditResultIsCompact(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	b.WriteString("TARGET\n")
	root := newWorkspace(t, map[string]string{"big.txt": b.String()})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "big.txt")
	out := mustOK(t, call(t, env, "edit_file", map[string]any{"path": "big.txt", "old_string": "TARGET", "new_string": "DONE"}))
	if len(out) > 400 || !strings.Contains(out, "-5001\tTARGET") || !strings.Contains(out, "+5001\tDONE") {
		t.Fatalf("result must be a short numbered diff, got %d bytes:\n%s", len(out), out)
	}
}

// TestEditFileDrift drives the drift rungs through the edit_file tool: the
// staged text and the note the model reads, and a refusal that points at
// the right lines.
func TestEditFileDrift(t *testing.T) {
	root := newWorkspace(t, map[string]string{
		"m.go":  "package m\n\nfunc f(x int) int {\n\tif x > 0 {\n\t\treturn x\n\t}\n\treturn -x\n}\n",
		"p.py":  "def f(x):\n    return x\n",
		"q.txt": "Say “hi”  twice.\n",
	})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "m.go", "p.py", "q.txt")
	out := mustOK(t, call(t, env, "edit_file", map[string]any{"path": "m.go",
		"old_string": "    if x > 0 {\n        return x\n    }",
		"new_string": "    if x > 0 {\n        x--\n        return x\n    }"}))
	if !strings.Contains(out, "indentation written differently (4 spaces in old_string ↔ 1 tab in the file)") {
		t.Fatalf("note missing:\n%s", out)
	}
	if got := stagedText(t, env, root, "m.go"); got != "package m\n\nfunc f(x int) int {\n\tif x > 0 {\n\t\tx--\n\t\treturn x\n\t}\n\treturn -x\n}\n" {
		t.Fatalf("m.go: %q", got)
	}
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "p.py", "old_string": "return x", "new_string": "if x is None:\n    return 0\nreturn x"}))
	if got := stagedText(t, env, root, "p.py"); got != "def f(x):\n    if x is None:\n        return 0\n    return x\n" {
		t.Fatalf("p.py: %q", got)
	}
	out = mustOK(t, call(t, env, "edit_file", map[string]any{"path": "q.txt", "old_string": "Say \"hi\" twice.", "new_string": "Say \"hi\" once."}))
	if got := stagedText(t, env, root, "q.txt"); got != "Say “hi”  once.\n" || !strings.Contains(out, "typographic characters and inner whitespace") {
		t.Fatalf("q.txt: %q\n%s", got, out)
	}
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "m.go", "old_string": "\treturn -y\n}", "new_string": "x"}),
		"The most similar text is at lines 8-9; it differs in the text of line 8:\n8\t\treturn -x\n9\t}\n")
}
