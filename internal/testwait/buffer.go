package testwait

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that one goroutine may write (a child process's
// output copied by os/exec, a logger in another goroutine) while the test
// reads it: the output a test polls or prints on failure.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
