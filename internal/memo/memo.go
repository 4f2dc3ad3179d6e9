// Package memo keeps answers that are costly to build and asked for again
// and again with nothing changed (an editor asks for code lenses and code
// actions on every cursor move and scroll). Each answer is kept with the
// stamp of every input it was built from, read before it was built; it is
// served only while the stamp read now is equal, so a change during the
// build is a miss next time, never a stale answer. Which inputs make the
// stamp is the caller's business: a stale answer is a bug, a miss only
// costs the build. The memo is bounded, and emptied when full: the
// answers asked for again are those of the last few requests, which come
// back at once.
package memo

import "sync"

// DefaultMax is how many answers a Map whose Max is zero keeps.
const DefaultMax = 128

// Map keeps values by key, each with its stamp. The zero value is ready
// and keeps DefaultMax values.
type Map[K, S comparable, V any] struct {
	// Max bounds the values kept; set it before first use.
	Max int

	mu sync.Mutex
	m  map[K]entry[S, V]
}

type entry[S comparable, V any] struct {
	stamp S
	val   V
}

// Get returns the value kept for k if it was built from stamp s.
func (c *Map[K, S, V]) Get(k K, s S) (V, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if !ok || e.stamp != s {
		var zero V
		return zero, false
	}
	return e.val, true
}

// Put keeps v, built from stamp s, for k, in place of what k held.
func (c *Map[K, S, V]) Put(k K, s S, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, held := c.m[k]; !held && len(c.m) >= c.max() {
		c.m = nil
	}
	if c.m == nil {
		c.m = map[K]entry[S, V]{}
	}
	c.m[k] = entry[S, V]{s, v}
}

// Len is the number of values kept.
func (c *Map[K, S, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

func (c *Map[K, S, V]) max() int {
	if c.Max > 0 {
		return c.Max
	}
	return DefaultMax
}
