package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// searchTree is a small project with ignored, hidden, binary and secret
// files to check what list_dir, glob and grep show.
func searchTree(t *testing.T) (string, *Env) {
	root := newWorkspace(t, map[string]string{
		".gitignore":            "build/\n*.log\n",
		"main.go":               "package main\n\nfunc main() {\n\tRun() // TODO: flags\n}\n",
		"run.go":                "package main\n\n// Run starts.\nfunc Run() {\n\tprintln(\"todo: Run\")\n}\n",
		"pkg/util/util.go":      "package util\n\n// TODO: more\nfunc Util() {}\n",
		"pkg/util/util_test.go": "package util\n",
		"docs/README.md":        "# Run\nTODO later\n",
		"build/out.go":          "package build // TODO ignored\n",
		"debug.log":             "TODO in a log\n",
		".hidden/h.go":          "package hidden // TODO hidden\n",
		"bin.dat":               "TODO\x00binary",
		".env":                  "TODO=secret\n",
		"crlf.txt":              "TODO crlf\r\nnext\r\n",
		"unicode.txt":           "héllo TODO 😀 世界\n",
	})
	return root, newEnv(t, root, Policy{})
}

func TestListDirGolden(t *testing.T) {
	root, env := searchTree(t)
	golden(t, "list_root.txt", mustOK(t, call(t, env, "list_dir", map[string]any{})))
	golden(t, "list_pkg.txt", mustOK(t, call(t, env, "list_dir", map[string]any{"path": "pkg/util"})))
	mustErr(t, call(t, env, "list_dir", map[string]any{"path": "nope"}), "not found")
	// A file created by the run shows up before it is on disk.
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "pkg/util/new.go", "content": "package util\n"}))
	if got := mustOK(t, call(t, env, "list_dir", map[string]any{"path": "pkg/util"})); !strings.Contains(got, "new.go (new, staged)") {
		t.Fatalf("staged new file missing: %s", got)
	}
	_ = root
}

func TestListDirCap(t *testing.T) {
	files := map[string]string{}
	for i := range listMaxEntries + 7 {
		files[fmt.Sprintf("d/f%04d.txt", i)] = "x"
	}
	root := newWorkspace(t, files)
	env := newEnv(t, root, Policy{})
	got := mustOK(t, call(t, env, "list_dir", map[string]any{"path": "d"}))
	if !strings.Contains(got, "[7 more entries not shown") || strings.Count(got, "\n") != listMaxEntries+1 {
		t.Fatalf("cap not applied honestly: %d lines, tail %q", strings.Count(got, "\n"), got[len(got)-80:])
	}
}

func TestGlobGolden(t *testing.T) {
	_, env := searchTree(t)
	golden(t, "glob_go.txt", mustOK(t, call(t, env, "glob", map[string]any{"pattern": "**/*.go"})))
	golden(t, "glob_top.txt", mustOK(t, call(t, env, "glob", map[string]any{"pattern": "*.go"})))
	golden(t, "glob_path.txt", mustOK(t, call(t, env, "glob", map[string]any{"pattern": "**/*_test.go", "path": "pkg"})))
	golden(t, "glob_none.txt", mustOK(t, call(t, env, "glob", map[string]any{"pattern": "nothing/**/*.rs"})))
	mustErr(t, call(t, env, "glob", map[string]any{"pattern": "[unclosed"}), "invalid glob")
}

func TestGlobCap(t *testing.T) {
	files := map[string]string{}
	for i := range globMaxResults + 5 {
		files[fmt.Sprintf("d%d/f%04d.txt", i%3, i)] = "x"
	}
	root := newWorkspace(t, files)
	env := newEnv(t, root, Policy{})
	got := mustOK(t, call(t, env, "glob", map[string]any{"pattern": "**/*.txt"}))
	if !strings.Contains(got, "[truncated at 1000 files") || strings.Count(got, "\n") != globMaxResults+1 {
		t.Fatalf("cap not applied honestly: %d lines", strings.Count(got, "\n"))
	}
}

func TestGrepGolden(t *testing.T) {
	_, env := searchTree(t)
	golden(t, "grep_todo.txt", mustOK(t, call(t, env, "grep", map[string]any{"pattern": "TODO"})))
	golden(t, "grep_icase_glob.txt", mustOK(t, call(t, env, "grep", map[string]any{"pattern": "todo", "ignore_case": true, "glob": "*.go"})))
	golden(t, "grep_regex_path.txt", mustOK(t, call(t, env, "grep", map[string]any{"pattern": `func \w+\(\)`, "path": "pkg"})))
	golden(t, "grep_none.txt", mustOK(t, call(t, env, "grep", map[string]any{"pattern": "zzz_absent"})))
	if got := mustOK(t, call(t, env, "grep", map[string]any{"pattern": "TODO", "glob": "pkg/**/*.go"})); got != "pkg/util/util.go:3:// TODO: more\n" {
		t.Fatalf("glob with a slash matches the path: %q", got)
	}
	if got := mustOK(t, call(t, env, "grep", map[string]any{"pattern": "TODO", "path": "main.go"})); got != "main.go:4:\tRun() // TODO: flags\n" {
		t.Fatalf("grep on one file: %q", got)
	}
	mustErr(t, call(t, env, "grep", map[string]any{"pattern": "(?<=x)y"}), "invalid RE2")
	mustErr(t, call(t, env, "grep", map[string]any{"pattern": "x", "path": "nope"}), "not found")
}

// TestGrepSeesBufferAndStaged: grep searches what the run would read.
func TestGrepSeesBufferAndStaged(t *testing.T) {
	root, env := searchTree(t)
	env.View.Open(filepath.Join(root, "docs/README.md"), 1, "# Run\nBUFFERWORD\n")
	readAll(t, env, "main.go")
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "main.go", "old_string": "// TODO: flags", "new_string": "// STAGEDWORD"}))
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "fresh.go", "content": "// STAGEDWORD too\n"}))
	got := mustOK(t, call(t, env, "grep", map[string]any{"pattern": "BUFFERWORD|STAGEDWORD"}))
	want := "docs/README.md:2:BUFFERWORD\nfresh.go:1:// STAGEDWORD too\nmain.go:4:\tRun() // STAGEDWORD\n[skipped files: 1 binary, 1 secret-looking]\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestGrepCapsAndOrder(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		var b strings.Builder
		for j := range 20 {
			fmt.Fprintf(&b, "match %d %d\n", i, j)
		}
		files[fmt.Sprintf("f%02d.txt", i)] = b.String()
	}
	files["long.txt"] = "match " + strings.Repeat("é", 400) + "\n"
	root := newWorkspace(t, files)
	env := newEnv(t, root, Policy{})
	got := mustOK(t, call(t, env, "grep", map[string]any{"pattern": "match"}))
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != grepMaxMatches+1 || lines[grepMaxMatches] != "[showing 200 of 601 matching lines in 31 files; narrow the pattern, path or glob]" {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	if lines[0] != "f00.txt:1:match 0 0" || lines[19] != "f00.txt:20:match 0 19" || lines[20] != "f01.txt:1:match 1 0" || lines[199] != "f09.txt:20:match 9 19" {
		t.Fatalf("not sorted by path then line: %q %q %q %q", lines[0], lines[19], lines[20], lines[199])
	}
	one := mustOK(t, call(t, env, "grep", map[string]any{"pattern": "match", "path": "long.txt"}))
	if !strings.HasSuffix(strings.TrimSpace(one), "…") || len(one) > grepMaxLineLen+40 {
		t.Fatalf("long line not cut: %d bytes", len(one))
	}
}
