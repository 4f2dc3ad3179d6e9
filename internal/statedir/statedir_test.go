package statedir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/agentls"},
		{map[string]string{"XDG_STATE_HOME": "rel", "HOME": "/h"}, "/h/.local/state/agentls"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/agentls"},
		{map[string]string{}, ""},
	} {
		if got := Dir(env(c.vars)); got != c.want {
			t.Errorf("Dir(%v) = %q, want %q", c.vars, got, c.want)
		}
	}
}

func TestWriteFileIsOwnerOnlyAndReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "f.json")
	for _, data := range []string{"first", "second"} {
		if err := WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != data {
			t.Fatalf("content %q, want %q", b, data)
		}
	}
	st, _ := os.Stat(path)
	dst, _ := os.Stat(filepath.Dir(path))
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Fatalf("modes file %v dir %v", st.Mode().Perm(), dst.Mode().Perm())
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}
