package lifetime

import (
	"context"
	"time"
)

// WaitProcessExit polls pid every interval until the process is gone
// (true) or ctx ends (false). A server started by an editor ends with it
// (LSP's processId: "if the parent process is not alive then the server
// should exit"), so a crashed editor never leaves agent runs working on.
// Polling, because a process that is not our child gives no signal when
// it dies.
func WaitProcessExit(ctx context.Context, pid int, interval time.Duration) bool {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if !processAlive(pid) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}
