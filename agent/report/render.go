package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/internal/text"
)

//go:embed report.html.tmpl
var pageText string

//go:embed report.css
var pageCSS string

//go:embed report.js
var pageJS string

// page is parsed once; its CSP pins the one inline style and script by
// hash, so nothing else in the page can run or style it, whatever a
// transcript holds.
var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"vis":      Visible,
	"diff":     diffLines,
	"dur":      fmtDuration,
	"num":      text.Thousands,
	"cost":     fmtCost,
	"when":     fmtTime,
	"short":    shortText,
	"long":     isLong,
	"size":     fmtSize,
	"css":      func() template.CSS { return template.CSS(pageCSS) },
	"js":       func() template.JS { return template.JS(pageJS) },
	"csp":      func() string { return csp },
	"fateword": fateWord,
}).Parse(pageText))

var csp = "default-src 'none'; img-src data:; style-src '" + hashOf(pageCSS) + "'; script-src '" + hashOf(pageJS) + "'; base-uri 'none'; form-action 'none'"

func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

// Page is what Render shows: a title and the runs, oldest first.
type Page struct {
	Title     string
	Generated time.Time
	Runs      []*Run
}

// Totals sums the runs' figures for a session page.
func (p Page) Totals() (t struct {
	Turns, ToolCalls int
	Usage            Usage
	Duration         time.Duration
}) {
	var cost float64
	priced := false
	for _, r := range p.Runs {
		t.Turns += r.Turns
		t.ToolCalls += r.ToolCalls
		t.Usage.PromptTokens += r.Usage.PromptTokens
		t.Usage.CompletionTokens += r.Usage.CompletionTokens
		t.Usage.CachedTokens += r.Usage.CachedTokens
		t.Duration += r.Duration()
		if r.Usage.CostUSD != nil {
			cost += *r.Usage.CostUSD
			priced = true
		}
	}
	if priced {
		t.Usage.CostUSD = &cost
	}
	return t
}

// Render writes the HTML page for runs.
func Render(w io.Writer, title string, runs []*Run) error {
	if err := page.Execute(w, Page{Title: title, Generated: time.Now(), Runs: runs}); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}

// Visible makes characters that a terminal or browser would act on or
// hide visible as text: C0/C1 controls (but newline and tab), DEL, and the
// bidirectional overrides and isolates that can make code read
// differently from what it is (Trojan Source). html/template escapes the
// rest.
func Visible(s string) string {
	clean := true
	for _, r := range s {
		if needsMark(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1: // an invalid byte
			b.WriteString("\uFFFD")
		case !needsMark(r):
			b.WriteString(s[i : i+size])
		case r < 0x20:
			b.WriteRune(0x2400 + r) // ␀ … ␟
		case r == 0x7f:
			b.WriteRune('␡')
		default:
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		}
		i += size
	}
	return b.String()
}

// needsMark is safetext.Unsafe but for the line breaks and tabs that give
// text its shape.
func needsMark(r rune) bool { return r != '\n' && r != '\t' && safetext.Unsafe(r) }

// diffLine is one line of a unified diff with its class for colouring.
type diffLine struct {
	Class, Text string
}

func diffLines(d string) []diffLine {
	lines := strings.SplitAfter(d, "\n")
	out := make([]diffLine, 0, len(lines))
	for _, l := range lines {
		if l == "" {
			continue
		}
		c := "ctx"
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			c = "meta"
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		case strings.HasPrefix(l, `\`):
			c = "meta"
		}
		out = append(out, diffLine{Class: c, Text: Visible(l)})
	}
	return out
}

func fmtDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func fmtCost(c *float64) string {
	if c == nil || *c < 0 {
		return ""
	}
	return fmt.Sprintf("$%.4f", *c)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func fmtSize(s string) string {
	switch n := len(s); {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}

// shortText is a one-line preview for a summary line.
func shortText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return Visible(s)
}

// isLong says whether a text starts collapsed: the whole text is always in
// the page, a click away.
func isLong(s string) bool {
	return len(s) > 2000 || strings.Count(s, "\n") > 40
}

func fateWord(f string) string {
	switch f {
	case "accepted", "rejected", "conflicted", "reverted":
		return f
	}
	return "other"
}
