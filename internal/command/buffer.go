package command

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Bounds say how much of a command's output is kept: the first HeadBytes,
// the last TailBytes, and at most MaxLines lines of that (the middle lines
// go first; with no head, the first lines).
type Bounds struct {
	HeadBytes, TailBytes, MaxLines int
}

// Buffer is an io.Writer that keeps Bounds of what is written to it. The
// tail is compacted only when it doubles, so a command printing gigabytes
// costs amortised constant work per byte and at most HeadBytes +
// 2*TailBytes of memory. It is safe for concurrent use (stdout and stderr
// may be written from two goroutines).
type Buffer struct {
	b Bounds

	mu         sync.Mutex
	head, tail []byte
	total      int64
}

// NewBuffer returns an empty buffer keeping b.
func NewBuffer(b Bounds) *Buffer { return &Buffer{b: b} }

// Write keeps what the bounds allow; it never fails.
func (h *Buffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	h.total += int64(n)
	if room := h.b.HeadBytes - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if h.b.TailBytes <= 0 {
		return n, nil
	}
	if len(p) >= h.b.TailBytes {
		h.tail = append(h.tail[:0], p[len(p)-h.b.TailBytes:]...)
		return n, nil
	}
	h.tail = append(h.tail, p...)
	if len(h.tail) > 2*h.b.TailBytes {
		h.tail = append(h.tail[:0], h.tail[len(h.tail)-h.b.TailBytes:]...)
	}
	return n, nil
}

// Total is the number of bytes written so far.
func (h *Buffer) Total() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// String returns the kept output: valid UTF-8, terminal escape sequences
// removed, at most MaxLines lines, a marker where output was dropped, and
// a final newline unless empty.
func (h *Buffer) String() string {
	h.mu.Lock()
	head := bytes.Clone(h.head)
	tail := h.tail[max(0, len(h.tail)-h.b.TailBytes):]
	dropped := h.total - int64(len(head)) - int64(len(tail))
	tail = bytes.Clone(tail)
	h.mu.Unlock()

	var b bytes.Buffer
	b.Write(head)
	if dropped > 0 {
		if len(head) > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[... %d bytes of output omitted ...]\n", dropped)
	}
	b.Write(tail)
	s := StripANSI(strings.ToValidUTF8(b.String(), "\uFFFD"))
	if max := h.b.MaxLines; max > 0 {
		if lines := strings.Split(s, "\n"); len(lines) > max {
			if h.b.HeadBytes > 0 {
				keep := max / 2
				s = strings.Join(lines[:keep], "\n") + fmt.Sprintf("\n[... %d lines omitted ...]\n", len(lines)-2*keep) + strings.Join(lines[len(lines)-keep:], "\n")
			} else {
				s = fmt.Sprintf("[... %d lines omitted ...]\n", len(lines)-max) + strings.Join(lines[len(lines)-max:], "\n")
			}
		}
	}
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// ansi matches terminal escape sequences: CSI (colours, cursor moves:
// ESC [ … final byte), OSC (titles, hyperlinks: ESC ] … BEL or ESC \),
// charset designations (ESC ( B) and the other two-byte escapes. Test runners colour their output when
// they think a terminal is there; the model and the run log want text.
var ansi = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)|\x1b[()*+][0-9A-Za-z]|\x1b[@-Z\\\\-_]")

// StripANSI removes terminal escape sequences from s.
func StripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansi.ReplaceAllString(s, "")
}
