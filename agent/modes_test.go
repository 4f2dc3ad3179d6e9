package agent

import (
	"slices"
	"testing"
)

func TestRunModes(t *testing.T) {
	if want := []string{"preview", "apply", "plan"}; !slices.Equal(RunModes, want) {
		t.Fatalf("RunModes = %v, want %v (preview first: the default)", RunModes, want)
	}
	for _, m := range []string{"preview", "apply", "plan"} {
		if !ValidRunMode(m) {
			t.Errorf("ValidRunMode(%q) = false", m)
		}
	}
	for _, m := range []string{"", "Plan", "auto", "apply "} {
		if ValidRunMode(m) {
			t.Errorf("ValidRunMode(%q) = true", m)
		}
	}
}

// A session's mode: the chosen one, else a valid configured one, else
// preview (a broken configured mode never means apply).
func TestSessionMode(t *testing.T) {
	for _, tc := range []struct{ chosen, configured, want string }{
		{"", "", "preview"},
		{"", "apply", "apply"},
		{"", "plan", "plan"},
		{"", "auto", "preview"},
		{"plan", "apply", "plan"},
		{"preview", "apply", "preview"},
	} {
		if got := SessionMode(tc.chosen, tc.configured); got != tc.want {
			t.Errorf("SessionMode(%q, %q) = %q, want %q", tc.chosen, tc.configured, got, tc.want)
		}
	}
}

// Only a plan changes how the run itself goes.
func TestRunRequestMode(t *testing.T) {
	for m, want := range map[string]string{"plan": ModePlan, "preview": "", "apply": "", "": ""} {
		if got := RunRequestMode(m); got != want {
			t.Errorf("RunRequestMode(%q) = %q, want %q", m, got, want)
		}
	}
}
