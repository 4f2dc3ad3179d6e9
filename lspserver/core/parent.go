package core

import (
	"context"
	"time"
)

// watchParent polls the editor process named by initialize's processId and
// ends the session when it is gone, as LSP asks ("If the parent process is
// not alive then the server should exit"), so an editor that crashed never
// leaves agentls running with its agent runs.
func (s *Server) watchParent(pid int) {
	s.Go("watch editor process", func(ctx context.Context) {
		t := time.NewTicker(s.opts.ParentPollInterval)
		defer t.Stop()
		for {
			if !processAlive(pid) {
				// Warn: the session ends without shutdown (exit code 1),
				// which is worth a line on stderr at the default level.
				s.log.Warn("editor process exited; shutting down", "pid", pid)
				s.life.parentOnce.Do(func() { close(s.life.parentGone) })
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}
