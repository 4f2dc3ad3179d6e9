package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathEscapes sends every way out of the workspace through every tool
// that takes a path: each must be a tool error naming the workspace folder,
// and nothing outside may be read, listed, staged or touched.
func TestPathEscapes(t *testing.T) {
	outside := newWorkspace(t, map[string]string{"secret.txt": "TOP SECRET\n", "dir/x.txt": "TOP SECRET\n"})
	root := newWorkspace(t, map[string]string{"in.txt": "inside\n"})
	links := map[string]string{
		"link_file":     filepath.Join(outside, "secret.txt"),
		"link_dir":      filepath.Join(outside, "dir"),
		"link_dangling": filepath.Join(outside, "nothing-yet.txt"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{
		"../" + filepath.Base(outside) + "/secret.txt",
		"in.txt/../../" + filepath.Base(outside) + "/secret.txt",
		filepath.Join(outside, "secret.txt"),
		"/etc/passwd",
		"~/secret.txt",
		"~",
		"link_file",
		"link_dir/x.txt",
		"link_dangling",
	}
	env := newEnv(t, root, Policy{})
	for _, p := range paths {
		calls := map[string]map[string]any{
			"read_file":  {"path": p},
			"list_dir":   {"path": p},
			"glob":       {"pattern": "**/*", "path": p},
			"grep":       {"pattern": "SECRET", "path": p},
			"edit_file":  {"path": p, "old_string": "", "new_string": "x"},
			"multi_edit": {"path": p, "edits": []map[string]any{{"old_string": "", "new_string": "x"}}},
			"write_file": {"path": p, "content": "pwned\n"},
		}
		for tool, args := range calls {
			if tool == "list_dir" && (p == "link_file" || p == "link_dangling") {
				continue // covered by the other tools; listing a file is not an escape test
			}
			res := call(t, env, tool, args)
			if !res.IsError {
				t.Errorf("%s(%q) succeeded: %s", tool, p, res.Text)
				continue
			}
			if strings.Contains(res.Text, "TOP SECRET") {
				t.Errorf("%s(%q) leaked content: %s", tool, p, res.Text)
			}
			if !strings.Contains(res.Text, "outside") && !strings.Contains(res.Text, "~") {
				t.Errorf("%s(%q) error does not explain the confinement: %s", tool, p, res.Text)
			}
			if !strings.Contains(res.Text, root) {
				t.Errorf("%s(%q) error does not name the workspace folder %s: %s", tool, p, root, res.Text)
			}
		}
	}
	if n := len(env.Changes.Files()); n != 0 {
		t.Fatalf("%d files staged by escape attempts", n)
	}
	if _, err := os.Stat(filepath.Join(outside, "nothing-yet.txt")); err == nil {
		t.Fatal("a file was created through the dangling symlink")
	}
	// Searching the workspace itself must not follow the symlinks out.
	for _, tool := range []string{"grep", "glob"} {
		args := map[string]any{"pattern": "SECRET"}
		if tool == "glob" {
			args = map[string]any{"pattern": "**/*.txt"}
		}
		res := mustOK(t, call(t, env, tool, args))
		if strings.Contains(res, "TOP SECRET") || strings.Contains(res, "x.txt") {
			t.Errorf("%s followed a symlink out of the workspace: %s", tool, res)
		}
	}
}

func TestNoWorkspaceFolder(t *testing.T) {
	env := newEnv(t, "", Policy{})
	env.View.SetFolders(nil)
	mustErr(t, call(t, env, "read_file", map[string]any{"path": "a.txt"}), "no workspace folder")
	mustErr(t, call(t, env, "list_dir", map[string]any{}), "no workspace folder")
}
