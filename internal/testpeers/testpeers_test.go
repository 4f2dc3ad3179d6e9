package testpeers

import (
	"testing"
)

// fakeTB records how a test ended.
type fakeTB struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Skipf(string, ...any)  { f.skipped = true }
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true }

func TestMissingSkipsOrFails(t *testing.T) {
	for _, tc := range []struct {
		env        string
		wantFailed bool
	}{{"", false}, {"0", false}, {"1", true}, {"yes", true}} {
		t.Setenv(RequireEnv, tc.env)
		f := &fakeTB{}
		Missing(f, "nvim not on PATH")
		if f.failed != tc.wantFailed || f.skipped == tc.wantFailed {
			t.Errorf("%s=%q: failed=%v skipped=%v, want failed=%v", RequireEnv, tc.env, f.failed, f.skipped, tc.wantFailed)
		}
	}
	t.Setenv(RequireEnv, "1")
	f := &fakeTB{}
	if p := LookPath(f, "agentls-no-such-program", "never installed"); p != "" || !f.failed {
		t.Errorf("LookPath of a missing program = %q, failed=%v", p, f.failed)
	}
}
