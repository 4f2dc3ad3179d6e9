package proposal

import (
	"fmt"
	"strings"
	"unicode"
)

// Proposals of different runs may touch the same lines: the same prompt run
// twice proposes the same block twice. Applying both would apply the change
// twice, so two such hunks clash, and a hunk is never applied together with,
// or after, a hunk it clashes with (docs/protocol.md, "Proposals that
// overlap, and new files"). Hunks of one proposal never clash: a run's
// hunks are meant to apply together.
//
// Two hunks a and b of different proposals clash when
//
//   - they overlap: they share a byte, a pure insertion sits strictly
//     inside the other's lines, or both insert at the same point (the
//     order of the two blocks would be a guess, and they are usually the
//     same block);
//   - they touch (one ends where the other starts) and the lines one adds
//     hold all the lines the other adds (at least one with a letter or a
//     digit): one run inserted a block where the other rewrote the
//     neighbouring line to include it;
//   - anywhere in the file, the lines one adds hold all of at least
//     farLines significant lines the other adds: both runs added the same
//     helper, in different places.
//
// The rules err on the side of a conflict: a false clash costs a re-run or
// a reject, a missed one duplicates code.

// clashKind says how a and b clash: clashNone, clashOverlap or clashSame.
type clashKind int

const (
	clashNone clashKind = iota
	// clashOverlap: the hunks change the same lines.
	clashOverlap
	// clashSame: one hunk's added lines are already in the other's.
	clashSame
)

// farLines is how many significant lines a hunk must add for a copy of
// them elsewhere in the file to count as the same change.
const farLines = 2

// clash reports how a and b clash (clashNone when they do not). Positions
// are read from start/end, so both must be relative to the same text.
func clash(a, b *hunk) clashKind { return clashes{}.clash(a, b) }

// clashes caches each hunk's added lines while many pairs are checked (an
// accept of a file with many runs' proposals checks every pair).
type clashes map[*hunk][]string

func (c clashes) added(h *hunk) []string {
	if c == nil {
		return addedLines(h)
	}
	l, ok := c[h]
	if !ok {
		l = addedLines(h)
		c[h] = l
	}
	return l
}

// clash is the package function clash with c's cache.
func (c clashes) clash(a, b *hunk) clashKind {
	if a.prop == b.prop {
		return clashNone
	}
	aa, ba := c.added(a), c.added(b)
	same := func(need int) bool {
		return holdsLines(aa, ba, need) || holdsLines(ba, aa, need)
	}
	if overlap(a, b) {
		if a.oldText == b.oldText && a.newText == b.newText || same(1) {
			return clashSame
		}
		return clashOverlap
	}
	touch := a.start <= b.end && b.start <= a.end
	if touch && same(1) || same(farLines) {
		return clashSame
	}
	return clashNone
}

// overlap reports whether a and b change the same lines: they share a
// byte, a pure insertion sits strictly inside the other's lines, or both
// insert at the same point.
func overlap(a, b *hunk) bool {
	ae, be := a.start == a.end, b.start == b.end
	switch {
	case ae && be:
		return a.start == b.start
	case ae:
		return b.start < a.start && a.start < b.end
	case be:
		return a.start < b.start && b.start < a.end
	}
	return a.start < b.end && b.start < a.end
}

// addedLines returns the lines h adds: its new lines without the leading
// and trailing lines it shares with its old ones, each without its line
// ending.
func addedLines(h *hunk) []string {
	old, neu := lines(h.oldText), lines(h.newText)
	for len(old) > 0 && len(neu) > 0 && old[0] == neu[0] {
		old, neu = old[1:], neu[1:]
	}
	for len(old) > 0 && len(neu) > 0 && old[len(old)-1] == neu[len(neu)-1] {
		old, neu = old[:len(old)-1], neu[:len(neu)-1]
	}
	return neu
}

// lines splits s into lines without their endings ("\n" or "\r\n").
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	for i, l := range out {
		out[i] = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
	}
	return out
}

// holdsLines reports whether the lines big hold small as a contiguous run
// and small has at least need significant lines.
func holdsLines(big, small []string, need int) bool {
	n := 0
	for _, l := range small {
		if significant(l) {
			n++
		}
	}
	if n < need || len(small) > len(big) {
		return false
	}
outer:
	for i := 0; i+len(small) <= len(big); i++ {
		for j, l := range small {
			if big[i+j] != l {
				continue outer
			}
		}
		return true
	}
	return false
}

// significant reports whether a line holds a letter or a digit: "}" or a
// blank line alone says nothing about a change being the same.
func significant(l string) bool {
	return strings.IndexFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// clashReason is the reason a hunk clashing with accepted hunk a is left
// out or conflicted; sameTime: a is accepted in the same plan.
func clashReason(k clashKind, a *hunk, sameTime bool) string {
	when := "which was accepted"
	if sameTime {
		when = "accepted at the same time"
	}
	if k == clashSame {
		return fmt.Sprintf("change %s of run %s, %s, already makes this change", a.id, a.prop.runID, when)
	}
	return fmt.Sprintf("overlaps change %s of run %s, %s", a.id, a.prop.runID, when)
}

// supersede conflicts h for good: accepted hunk a clashes with it (k). A
// superseded hunk never turns pending again, whatever the text becomes;
// only a new proposal of a different change brings its lines back.
func (h *hunk) supersede(a *hunk, k clashKind) {
	h.status = StatusConflicted
	h.superseded = a.id
	h.reason = clashReason(k, a, false) + "; reject it, or ask the agent again on the text as it is now"
}
