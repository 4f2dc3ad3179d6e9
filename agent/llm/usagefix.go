package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	openai "github.com/sashabaranov/go-openai"
)

// Usage that cannot be read is ignored, not fatal (docs/protocol.md, "One
// core, three faces"). go-openai decodes each stream event whole into
// typed integers, so one usage block with "prompt_tokens": 12.0, 1e30, NaN
// or "12" failed the model call, and with it the run, over a figure that
// is only bookkeeping. usageBody rewrites such a block to "usage": null
// before go-openai sees it: the call goes on, and the run counts the call
// locally (marked estimated) as for an endpoint that reports nothing.

// usageBody passes a response body through line by line, nulling usage
// blocks that do not decode.
type usageBody struct {
	r   *bufio.Reader
	rc  io.Closer
	buf []byte // what is left of the current line
	err error
}

func newUsageBody(rc io.ReadCloser) *usageBody {
	return &usageBody{r: bufio.NewReader(rc), rc: rc}
}

func (b *usageBody) Read(p []byte) (int, error) {
	for len(b.buf) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		// The line is bounded by lineLimitBody below (Config.MaxAnswerBytes).
		line, err := b.r.ReadBytes('\n')
		b.buf, b.err = fixUsage(line), err
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

func (b *usageBody) Close() error { return b.rc.Close() }

// usageKey is how the usage member starts in an event.
var usageKey = []byte(`"usage"`)

// fixUsage returns an SSE line with its event's top-level "usage" value
// replaced by null when that value does not decode as go-openai's Usage;
// every other line (and every decodable usage, however implausible: the
// assembler judges those) comes back as it was.
func fixUsage(line []byte) []byte {
	rest, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !bytes.Contains(rest, usageKey) {
		return line
	}
	start, end, ok := usageSpan(rest)
	if !ok {
		return line
	}
	v := rest[start:end]
	if bytes.Equal(v, []byte("null")) {
		return line
	}
	var u openai.Usage
	if json.Unmarshal(v, &u) == nil {
		return line
	}
	off := len(line) - len(rest)
	out := make([]byte, 0, len(line))
	out = append(out, line[:off+start]...)
	out = append(out, "null"...)
	out = append(out, line[off+end:]...)
	if !json.Valid(bytes.TrimSpace(out[off:])) {
		return line // broken elsewhere too: go-openai reports it as before
	}
	return out
}

// usageSpan finds the value of the top-level "usage" member of the JSON
// object in b, tolerating what is not JSON inside that value (NaN,
// Infinity): [start, end) of the value with surrounding space trimmed.
func usageSpan(b []byte) (start, end int, ok bool) {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			j := stringEnd(b, i)
			if j < 0 {
				return 0, 0, false
			}
			if depth == 1 && bytes.Equal(b[i:j], usageKey) {
				k := skipSpace(b, j)
				if k < len(b) && b[k] == ':' {
					start = skipSpace(b, k+1)
					end = valueEnd(b, start)
					for end > start && isSpace(b[end-1]) {
						end--
					}
					return start, end, end > start
				}
			}
			i = j - 1
		}
	}
	return 0, 0, false
}

// stringEnd is the index just after the JSON string starting at b[i], -1
// when it does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd is where the member value starting at b[i] ends: at the comma
// or closing brace of its object, outside strings and nested values.
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		case '"':
			j := stringEnd(b, i)
			if j < 0 {
				return len(b)
			}
			i = j - 1
		}
	}
	return i
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
