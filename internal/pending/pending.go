// Package pending holds the keys (document paths) that changed since a
// consumer last handled them, for a goroutine that handles them in rounds:
// the LSP face announces changed proposals and republishes preview
// diagnostics this way. Producers (the proposal store's change hooks, the
// read loop) must never wait for the consumer, and a burst of changes to
// one document must cost one round, not one per change; a set plus a
// one-slot wake-up gives both, and each round sees its keys sorted so the
// editor hears of documents in a stable order.
package pending

import (
	"context"
	"slices"
	"sync"
)

// Set is the keys waiting for the next round. The zero value is ready.
type Set struct {
	mu   sync.Mutex
	keys map[string]struct{}
	wake chan struct{} // capacity 1: one wake-up stands for any number of Adds
}

// wakeup is the wake channel, made on first use (under mu).
func (s *Set) wakeup() chan struct{} {
	if s.wake == nil {
		s.wake = make(chan struct{}, 1)
	}
	return s.wake
}

// Add records key for the next round. It never blocks.
func (s *Set) Add(key string) {
	s.mu.Lock()
	if s.keys == nil {
		s.keys = map[string]struct{}{}
	}
	s.keys[key] = struct{}{}
	wake := s.wakeup()
	s.mu.Unlock()
	select {
	case wake <- struct{}{}:
	default:
	}
}

// Remove drops key from the next round (there is nothing left to do for
// it, e.g. its document closed).
func (s *Set) Remove(key string) {
	s.mu.Lock()
	delete(s.keys, key)
	s.mu.Unlock()
}

// Len is the number of keys waiting.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}

// Take empties the set and returns its keys, sorted.
func (s *Set) Take() []string {
	s.mu.Lock()
	keys := make([]string, 0, len(s.keys))
	for k := range s.keys {
		keys = append(keys, k)
	}
	clear(s.keys)
	s.mu.Unlock()
	slices.Sort(keys)
	return keys
}

// Run calls round with the keys added since the last round, sorted, each
// time some were added, until ctx ends. Keys added while a round runs
// wait for the next one, so a slow round (an editor slow to answer)
// coalesces everything that happened meanwhile. Run is the set's one
// consumer.
func (s *Set) Run(ctx context.Context, round func(ctx context.Context, keys []string)) {
	s.mu.Lock()
	wake := s.wakeup()
	s.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		if keys := s.Take(); len(keys) > 0 {
			round(ctx, keys)
		}
	}
}
