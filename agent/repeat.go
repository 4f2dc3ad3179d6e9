package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// repeatTracker counts identical tool calls (same name, same arguments after
// canonicalisation) so a model stuck in a loop is warned, then stopped.
//
// Counting spans the whole run, except that a successful mutating call
// (an edit) resets every count: after the workspace changed, reading the
// same file again is progress, not a loop.
type repeatTracker struct {
	counts map[string]int
}

func newRepeatTracker() *repeatTracker { return &repeatTracker{counts: map[string]int{}} }

// see records one call and returns how many times it has now been made.
func (r *repeatTracker) see(name, args string) int {
	k := name + "\x00" + canonicalArgs(args)
	r.counts[k]++
	return r.counts[k]
}

// reset forgets all counts (the workspace changed).
func (r *repeatTracker) reset() { clear(r.counts) }

// canonicalArgs renders JSON arguments with sorted keys and no insignificant
// whitespace, so {"b":1, "a":2} and {"a":2,"b":1} count as the same call.
// Invalid JSON is compared as trimmed text.
func canonicalArgs(args string) string {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return strings.TrimSpace(args)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // maps encode with sorted keys
		return strings.TrimSpace(args)
	}
	return strings.TrimSpace(buf.String())
}

// repeatWarning is appended to the result of the warnAt-th identical call.
func repeatWarning(name string, n, stopAt int) string {
	return fmt.Sprintf("\n\n[agentls] Warning: this is call number %d to %s with exactly the same arguments. "+
		"Repeating it will not give a different result; change your approach. The run stops at the %s identical call.",
		n, name, ordinal(stopAt))
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
