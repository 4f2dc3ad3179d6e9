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
