package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPendingNewFile: a path that does not exist but holds an earlier
// run's pending new file reads as that file (with a note), is changed by
// edit_file, multi_edit and write_file only after that read, and the
// change is staged as this run's own new file with the whole text; once
// the earlier file lands with the text the run read, a write is an
// ordinary change of it, not a conflict.
func TestPendingNewFile(t *testing.T) {
	const proposed = "def test_total():\n    assert Cart().total == 0\n"
	root := newWorkspace(t, map[string]string{"cart.py": "class Cart: pass\n"})
	abs := filepath.Join(root, "test_cart.py")
	pending := func(path string) (PendingNew, bool) {
		if path == abs {
			return PendingNew{RunID: "run-0", Text: proposed}, true
		}
		return PendingNew{}, false
	}

	t.Run("unread", func(t *testing.T) {
		env := newEnv(t, root, Policy{})
		env.PendingNewFile = pending
		mustErr(t, call(t, env, "edit_file", map[string]any{"path": "test_cart.py", "old_string": "== 0", "new_string": "== 1"}),
			"does not exist yet", "run-0", "Read it first")
		mustErr(t, call(t, env, "write_file", map[string]any{"path": "test_cart.py", "content": "x\n"}), "does not exist yet", "Read it first")
		if files := env.Changes.Files(); len(files) != 0 {
			t.Fatalf("staged %v", files)
		}
		// Other missing paths are as before.
		mustErr(t, call(t, env, "read_file", map[string]any{"path": "nope.py"}), "file not found")
	})

	t.Run("read then edit", func(t *testing.T) {
		env := newEnv(t, root, Policy{})
		env.PendingNewFile = pending
		got := mustOK(t, call(t, env, "read_file", map[string]any{"path": "test_cart.py"}))
		if !strings.Contains(got, "assert Cart().total == 0") || !strings.Contains(got, "does not exist yet") || !strings.Contains(got, "run-0") {
			t.Fatalf("read of the pending new file: %q", got)
		}
		res := mustOK(t, call(t, env, "edit_file", map[string]any{"path": "test_cart.py", "old_string": "== 0", "new_string": "== 1"}))
		if !strings.Contains(res, "replaces the one your earlier run run-0 proposed") {
			t.Fatalf("edit result %q", res)
		}
		st, ok := env.Changes.Get(abs)
		want := strings.Replace(proposed, "== 0", "== 1", 1)
		if !ok || !st.Created || st.Base != "" || st.Text != want {
			t.Fatalf("staged %+v, want a new file with %q", st, want)
		}
		// Now the run's own staged file is what it reads and edits.
		mustOK(t, call(t, env, "multi_edit", map[string]any{"path": "test_cart.py", "edits": []map[string]any{{"old_string": "test_total", "new_string": "test_sum"}}}))
		if st, _ := env.Changes.Get(abs); st.Text != strings.Replace(want, "test_total", "test_sum", 1) || !st.Created {
			t.Fatalf("after multi_edit: %+v", st)
		}
	})

	t.Run("write the same text", func(t *testing.T) {
		env := newEnv(t, root, Policy{})
		env.PendingNewFile = pending
		mustOK(t, call(t, env, "read_file", map[string]any{"path": "test_cart.py"}))
		mustErr(t, call(t, env, "write_file", map[string]any{"path": "test_cart.py", "content": proposed}), "exactly the content your earlier run run-0 proposed")
	})

	t.Run("earlier file lands after the read", func(t *testing.T) {
		env := newEnv(t, root, Policy{})
		landed := false
		env.PendingNewFile = func(path string) (PendingNew, bool) {
			if landed {
				return PendingNew{}, false
			}
			return pending(path)
		}
		mustOK(t, call(t, env, "read_file", map[string]any{"path": "test_cart.py"}))
		writeFileT(t, abs, proposed)
		landed = true
		res := mustOK(t, call(t, env, "write_file", map[string]any{"path": "test_cart.py", "content": proposed + "\ndef test_empty(): pass\n"}))
		if !strings.HasPrefix(res, "Replaced") || strings.Contains(res, "earlier run") {
			t.Fatalf("write result %q", res)
		}
		if st, _ := env.Changes.Get(abs); st.Created || st.Base != proposed {
			t.Fatalf("staged %+v, want a change of the landed file", st)
		}
	})
}
