// Package testwait bounds the waits of tests. A test that waits for
// something that never happens must fail and say what it waited for, not
// hang until the go test -timeout kills the whole binary and hides which
// test it was. The bound is a safety net against hangs, not a timing
// assertion: it is far longer than anything should take on a loaded
// machine.
package testwait

import (
	"testing"
	"time"
)

// Limit is how long a test waits for one event before failing.
const Limit = 2 * time.Minute

// Recv receives one value from ch, failing the test (naming what) if
// nothing arrives within Limit.
func Recv[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		tb.Fatalf("testwait: gave up after %v waiting for %s", Limit, what)
		var zero T
		return zero
	}
}

// Until polls cond (every 20 ms) until it holds, failing the test (naming
// what) if it does not within Limit: for state that changes in the
// background without an event to wait on.
func Until(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(Limit)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("testwait: gave up after %v waiting for %s", Limit, what)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
