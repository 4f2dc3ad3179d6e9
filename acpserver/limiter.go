package acpserver

import (
	"context"
	"sync"
)

// runLimiter bounds the agent runs working at once over one connection
// (maxConcurrentRuns, as in the LSP server); later prompts wait in order
// of arrival and can be cancelled while waiting.
type runLimiter struct {
	mu      sync.Mutex
	running int
	waiters []chan struct{}
}

// acquire waits for a slot under limit n (read from the configuration at
// each prompt, so a change applies to the next one).
func (l *runLimiter) acquire(ctx context.Context, n int) (release func(), err error) {
	n = max(n, 1)
	for {
		l.mu.Lock()
		if l.running < n {
			l.running++
			l.mu.Unlock()
			return l.release, nil
		}
		ch := make(chan struct{})
		l.waiters = append(l.waiters, ch)
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			l.mu.Lock()
			woken := true
			for i, w := range l.waiters {
				if w == ch {
					l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
					woken = false
					break
				}
			}
			if woken { // our wake-up is not lost: pass it on
				l.wakeOne()
			}
			l.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

func (l *runLimiter) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running--
	l.wakeOne()
}

// wakeOne wakes the first waiter (under l.mu).
func (l *runLimiter) wakeOne() {
	if len(l.waiters) > 0 {
		close(l.waiters[0])
		l.waiters = l.waiters[1:]
	}
}
