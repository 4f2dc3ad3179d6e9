package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

func TestReadFileGolden(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	root := newWorkspace(t, map[string]string{
		"small.go":  "package main\n\nfunc main() {\n\tprintln(\"héllo 😀 世界\")\n}\n",
		"crlf.txt":  "one\r\ntwo\r\n",
		"long.txt":  long.String(),
		"wide.txt":  "short\n" + strings.Repeat("x", 2500) + "\nend",
		"empty.txt": "",
	})
	env := newEnv(t, root, Policy{})
	cases := []struct {
		name string
		args map[string]any
	}{
		{"read_small.txt", map[string]any{"path": "small.go"}},
		{"read_crlf.txt", map[string]any{"path": "crlf.txt"}},
		{"read_page.txt", map[string]any{"path": "long.txt", "offset": 10, "limit": 5}},
		{"read_tail.txt", map[string]any{"path": "long.txt", "offset": 28, "limit": nil}},
		{"read_wide.txt", map[string]any{"path": "wide.txt"}},
		{"read_empty.txt", map[string]any{"path": "empty.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, c.name, mustOK(t, call(t, env, "read_file", c.args)))
		})
	}
}

func TestReadFileRefusals(t *testing.T) {
	root := newWorkspace(t, map[string]string{
		"bin.dat":      "abc\x00def",
		"latin1.txt":   "caf\xe9\n",
		"a.txt":        "1\n2\n",
		".env":         "KEY=secret\n",
		"certs/s.pem":  "-----BEGIN-----\n",
		"conf/x.token": "tok\n",
		"dir/f.txt":    "x\n",
	})
	env := newEnv(t, root, Policy{SecretPatterns: []string{"conf/*.token"}})
	mustErr(t, call(t, env, "read_file", map[string]any{"path": "bin.dat"}), "binary")
	mustErr(t, call(t, env, "read_file", map[string]any{"path": "latin1.txt"}), "binary")
	mustErr(t, call(t, env, "read_file", map[string]any{"path": "missing.txt"}), "file not found: missing.txt")
	mustErr(t, call(t, env, "read_file", map[string]any{"path": "a.txt", "offset": 5}), "past the end", "2 lines")
	mustErr(t, call(t, env, "read_file", map[string]any{"path": ".env"}), "looks like a secret")
	mustErr(t, call(t, env, "read_file", map[string]any{"path": "certs/s.pem"}), "looks like a secret")
	mustErr(t, call(t, env, "read_file", map[string]any{"path": "conf/x.token"}), "looks like a secret")
	mustErr(t, call(t, env, "read_file", map[string]any{"path": "dir"}), "directory")
	if env.Ledger.Len() != 0 {
		t.Fatalf("refused reads must not be recorded, ledger has %d", env.Ledger.Len())
	}
	allowed := newEnv(t, root, Policy{AllowSecrets: true})
	if got := mustOK(t, call(t, allowed, "read_file", map[string]any{"path": ".env"})); !strings.Contains(got, "KEY=secret") {
		t.Fatalf("AllowSecrets must show the file: %s", got)
	}
}

// TestReadFileRecordsWholeHash: a partial read records the hash of the
// whole file, so a later edit anywhere in it passes the lock.
func TestReadFileRecordsWholeHash(t *testing.T) {
	content := strings.Repeat("abc\n", 100)
	root := newWorkspace(t, map[string]string{"f.txt": content})
	env := newEnv(t, root, Policy{})
	mustOK(t, call(t, env, "read_file", map[string]any{"path": "f.txt", "offset": 3, "limit": 1}))
	rec, ok := env.Ledger.Lookup(filepath.Join(root, "f.txt"))
	if !ok || rec.Hash != hashText(content) || rec.Text != content {
		t.Fatalf("ledger entry %+v does not describe the whole file", rec)
	}
}

// TestReadFileSeesBufferAndStaged: an open editor buffer wins over disk, and
// the run's own staged text wins over both.
func TestReadFileSeesBufferAndStaged(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": "disk\n"})
	env := newEnv(t, root, Policy{})
	abs := filepath.Join(root, "f.go")
	env.View.Open(abs, 1, "buffer\n")
	if got := mustOK(t, call(t, env, "read_file", map[string]any{"path": "f.go"})); !strings.Contains(got, "buffer") || strings.Contains(got, "disk") {
		t.Fatalf("read_file must show the buffer: %s", got)
	}
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "buffer", "new_string": "staged"}))
	got := mustOK(t, call(t, env, "read_file", map[string]any{"path": "f.go"}))
	if !strings.Contains(got, "staged") || !strings.Contains(got, "not on disk yet") {
		t.Fatalf("read_file must show the staged text and say so: %s", got)
	}
	if readFileT(t, abs) != "disk\n" {
		t.Fatal("edit_file wrote to disk")
	}
	// The buffer changes in a way the staged edit does not touch: the
	// edit is rebased and the read shows both.
	if err := env.View.Change(abs, 2, []text.Change{{Text: "buffer\nmore\n"}}, text.UTF16); err != nil {
		t.Fatal(err)
	}
	got = mustOK(t, call(t, env, "read_file", map[string]any{"path": "f.go"}))
	if !strings.Contains(got, "staged") || !strings.Contains(got, "more") || !strings.Contains(got, "kept on top of it") {
		t.Fatalf("read after a buffer change must show the rebased text: %s", got)
	}
}
