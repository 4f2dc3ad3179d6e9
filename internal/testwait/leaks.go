package testwait

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// LeakWait is how long the leak checks give goroutines to end before they
// count as leaked. goleak alone gives up after about 0.4 s, which a
// goroutine that is already on its way out (a pipe reader after its
// process was killed, a connection closing) can outlast on a loaded CI
// machine. A real leak never ends, so the longer wait costs only failing
// runs; like Limit it is a bound, not a timing assertion.
const LeakWait = 30 * time.Second

// Leaks returns goleak's report of the goroutines still running (other
// than those opts ignore) after LeakWait, or nil as soon as there are none.
func Leaks(opts ...goleak.Option) error {
	deadline := time.Now().Add(LeakWait)
	for {
		err := goleak.Find(opts...) // itself retries for about 0.4 s
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// NoLeaks fails tb when goroutines (other than those opts ignore) are
// still running after LeakWait: goleak.VerifyNone with a bound a loaded
// machine does not outlast.
func NoLeaks(tb testing.TB, opts ...goleak.Option) {
	tb.Helper()
	if err := Leaks(opts...); err != nil {
		tb.Error(err)
	}
}

// VerifyTestMain runs the package's tests and then fails the package (exit
// status 1) when goroutines are still running after LeakWait: goleak's
// VerifyTestMain with NoLeaks's bound. Use it as
// `func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }`.
func VerifyTestMain(m goleak.TestingM, opts ...goleak.Option) {
	code := m.Run()
	if code == 0 {
		if err := Leaks(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: Errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
