package safetext

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer escapes what is written through it as Text does, for a stream
// written in pieces (streamed model text): a UTF-8 sequence or a "\r\n"
// split between two writes is judged whole. It is safe for concurrent
// use; Flush writes what is held back at the end of a stream.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // an incomplete UTF-8 sequence or a lone "\r" at the end of the last write
}

// NewWriter returns a Writer escaping onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports len(p) on success, as callers
// of io.Writer expect, although more bytes may reach w.
func (sw *Writer) Write(p []byte) (int, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	buf := append(sw.pending, p...)
	sw.pending = nil
	keep := holdBack(buf)
	if keep > 0 {
		sw.pending = append([]byte(nil), buf[len(buf)-keep:]...)
		buf = buf[:len(buf)-keep]
	}
	if len(buf) == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(sw.w, Text(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer escaped onto (to ask whether it is a
// terminal).
func (sw *Writer) Unwrap() io.Writer { return sw.w }

// Flush writes (escaped) what Write held back.
func (sw *Writer) Flush() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if len(sw.pending) == 0 {
		return nil
	}
	s := Text(string(sw.pending))
	sw.pending = nil
	_, err := io.WriteString(sw.w, s)
	return err
}

// holdBack is how many bytes at the end of b may change meaning with the
// next write: a trailing "\r" (the start of "\r\n"?) or the start of an
// incomplete UTF-8 sequence.
func holdBack(b []byte) int {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return 1
	}
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}
