package workspace

import "testing"

// The same without openat2 (old kernels, seccomp): the descriptor check.
func TestSymlinkSwapRaceNoOpenat2(t *testing.T) {
	if !noOpenat2.CompareAndSwap(false, true) {
		t.Fatal("openat2 already disabled")
	}
	defer noOpenat2.Store(false)
	raceReads(t, 3000)
}
