// Package aicomment finds tasks written as comments: a comment whose text
// ends with "agent!" asks the agent to do what the comment says (the idea
// of Aider's "AI comments"). It lets clients that cannot type a prompt
// (Helix, eglot) start a task from the buffer itself, and it knows
// nothing of any protocol: a face turns Tasks into diagnostics and
// actions, and Prompt into a run.
//
// The scanner looks for the marker first and only then at the line around
// it, so a document without "agent!" costs one substring search. Comment
// syntax comes from the file name (Syntax); a name it does not know
// accepts every common syntax.
package aicomment

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// Marker ends a task comment (ASCII case does not matter: "Agent!" too).
const Marker = "agent!"

// Bounds of one scan: a document is the editor's buffer, scanned after
// typing, so the work stays small whatever the user opens.
const (
	// MaxDocumentBytes: larger documents are not scanned at all.
	MaxDocumentBytes = 4 << 20
	// MaxTasks per document; later comments are ignored.
	MaxTasks = 20
	// MaxWordsBytes clips a task's words (a paragraph, not a file).
	MaxWordsBytes = 2000
	// maxGroupLines is how many comment lines above the marked one join
	// its words (a task written over a few lines).
	maxGroupLines = 8
	// ContextLines is how many lines above and below the comment a run
	// gets as its editor context.
	ContextLines = 10
)

// Task is one task comment in a document. Offsets are bytes of the
// document; lines count from 0.
type Task struct {
	// Start is the offset of the comment's opening delimiter (of its first
	// line when it spans several); End is just after the marker, or after
	// the closing delimiter of a block comment.
	Start, End int
	// Line is the line of the marker; FirstLine that of Start.
	Line, FirstLine int
	// Words is what the comment asks, without delimiters or the marker,
	// lines joined by spaces.
	Words string
}

// Syntax is the set of comment delimiters of a language.
type Syntax struct {
	Line  []string    // line comment openers: "//", "#", ...
	Block [][2]string // single-line block comments: {"/*", "*/"}
}

var (
	cLike  = Syntax{Line: []string{"//"}, Block: [][2]string{{"/*", "*/"}}}
	hash   = Syntax{Line: []string{"#"}}
	dashes = Syntax{Line: []string{"--"}, Block: [][2]string{{"{-", "-}"}}}
	semi   = Syntax{Line: []string{";"}}
	markup = Syntax{Block: [][2]string{{"<!--", "-->"}}}
	// Any is used for names Syntax does not know.
	Any = Syntax{Line: []string{"//", "#", "--", ";"}, Block: [][2]string{{"/*", "*/"}, {"<!--", "-->"}}}
)

var byExt = map[string]Syntax{}

func init() {
	for syn, exts := range map[*Syntax]string{
		&cLike:  "go c h cc cpp cxx hpp hh java js mjs cjs ts mts cts jsx tsx rs swift kt kts scala cs dart zig proto groovy gradle css scss less jsonc json5 v sv",
		&hash:   "py pyi rb sh bash zsh fish pl pm r yaml yml toml conf cfg mk cmake nix ex exs jl tf ps1 coffee cr nim awk dockerfile makefile gitignore",
		&dashes: "sql lua hs elm ada adb ads purs",
		&semi:   "el lisp cl clj cljs cljc edn scm ss rkt asm s ini",
		&markup: "html htm xml xhtml svg vue svelte md markdown",
	} {
		for _, e := range strings.Fields(exts) {
			byExt[e] = *syn
		}
	}
	// PHP has both C and shell comments.
	byExt["php"] = Syntax{Line: []string{"//", "#"}, Block: [][2]string{{"/*", "*/"}}}
}

// SyntaxFor returns the comment syntax of a file name (a path or a bare
// name such as "Makefile"); Any when it does not know the language.
func SyntaxFor(name string) Syntax {
	base := strings.ToLower(filepath.Base(name))
	if s, ok := byExt[base]; ok { // Makefile, Dockerfile
		return s
	}
	if s, ok := byExt[strings.TrimPrefix(filepath.Ext(base), ".")]; ok {
		return s
	}
	return Any
}

// Scan returns the task comments of doc, at most MaxTasks, in order.
// Documents over MaxDocumentBytes yield none.
func Scan(doc string, syn Syntax) []Task {
	if len(doc) > MaxDocumentBytes {
		return nil
	}
	var out []Task
	counted, lines := 0, 0 // lines before offset counted
	for from := 0; len(out) < MaxTasks; {
		i := indexMarker(doc, from)
		if i < 0 {
			break
		}
		from = i + len(Marker)
		lines += strings.Count(doc[counted:i], "\n")
		counted = i
		if t, ok := taskAt(doc, i, lines, syn); ok {
			out = append(out, t)
		}
	}
	return out
}

// indexMarker finds the next Marker (ASCII case-insensitive) at or after
// from. It searches for "gent!", which is rare, and checks the letter
// before it.
func indexMarker(doc string, from int) int {
	for from < len(doc) {
		j := strings.Index(doc[from:], "gent!")
		if j < 0 {
			return -1
		}
		i := from + j - 1
		if i >= 0 && strings.EqualFold(doc[i:i+len(Marker)], Marker) {
			return i
		}
		from += j + len("gent!")
	}
	return -1
}

// taskAt reads the task whose marker is at doc[m:], if the marker ends a
// comment of syn.
// lineNo is the line of m.
func taskAt(doc string, m, lineNo int, syn Syntax) (Task, bool) {
	ls, le := lineBounds(doc, m)
	line := doc[ls:le]
	col := m - ls
	// A word ending in "agent!" ("reagent!") is not the marker.
	if col > 0 && isWordByte(line[col-1]) {
		return Task{}, false
	}
	after := strings.Trim(line[col+len(Marker):], " \t")
	open, words, ok := commentBefore(line, col, after, syn)
	if !ok {
		return Task{}, false
	}
	end := m + len(Marker)
	if after != "" { // the closing delimiter of a block comment
		end = m + len(Marker) + strings.Index(line[col+len(Marker):], after) + len(after)
	}
	t := Task{Start: ls + open, End: end, Line: lineNo, FirstLine: lineNo}
	parts := []string{words}
	// A line comment alone on its line takes the comment lines right
	// above it that use the same opener: the task was written over them.
	if opener, whole := wholeLineComment(line, open, syn); whole {
		ps := ls
		for range maxGroupLines {
			if ps == 0 {
				break
			}
			pe := ps - 1
			ps = strings.LastIndexByte(doc[:pe], '\n') + 1
			prev := strings.TrimSuffix(doc[ps:pe], "\r")
			body, ok := strings.CutPrefix(strings.TrimLeft(prev, " \t"), opener)
			body = strings.TrimSpace(strings.TrimLeft(body, "/#;-*! \t"))
			if !ok || body == "" || indexMarker(prev, 0) >= 0 {
				break
			}
			parts = append(parts, body)
			t.Start = ps + len(prev) - len(strings.TrimLeft(prev, " \t"))
			t.FirstLine--
		}
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	t.Words = clip(strings.Join(parts, " "), MaxWordsBytes)
	if strings.TrimSpace(t.Words) == "" {
		return Task{}, false // "// agent!" alone asks nothing
	}
	return t, true
}

// commentBefore finds the comment that the marker at line[col:] ends:
// after is what follows the marker (trailing blanks dropped), which must
// be empty for a line comment and the closing delimiter for a block
// comment. It returns the opener's column and the comment's words.
func commentBefore(line string, col int, after string, syn Syntax) (open int, words string, ok bool) {
	best := -1
	var bestLen int
	consider := func(opener string) {
		for from := 0; from < col; {
			j := strings.Index(line[from:col], opener)
			if j < 0 {
				return
			}
			at := from + j
			from = at + 1
			// An opener starts a comment only at the start of the line or
			// after a blank ("x--", "a#b" and "http://" are not comments),
			// and not inside a string literal.
			if at > 0 && line[at-1] != ' ' && line[at-1] != '\t' {
				continue
			}
			if inString(line[:at]) {
				continue
			}
			if best < 0 || at < best {
				best, bestLen = at, len(opener)
			}
			return
		}
	}
	if after == "" {
		for _, o := range syn.Line {
			consider(o)
		}
	}
	for _, b := range syn.Block {
		if after == b[1] {
			consider(b[0])
		}
	}
	if best < 0 {
		return 0, "", false
	}
	words = line[best+bestLen : col]
	words = strings.TrimLeft(words, "/#;-*! \t") // "///", "##", ";;;", "---", "//!"
	words = strings.TrimRight(words, " \t,:;-—–")
	return best, words, true
}

// wholeLineComment reports whether the comment opening at line[open:] is
// a line comment with nothing but blanks before it, and its opener.
func wholeLineComment(line string, open int, syn Syntax) (string, bool) {
	if strings.TrimLeft(line[:open], " \t") != "" {
		return "", false
	}
	for _, o := range syn.Line {
		if strings.HasPrefix(line[open:], o) {
			return o, true
		}
	}
	return "", false
}

// inString reports whether s ends inside a "…" or '…' literal (an odd
// number of unescaped quotes of either kind that is open): good enough
// to keep `"// do it agent!"` out without a parser per language.
func inString(s string) bool {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\'' || c == '`'):
			quote = c
		}
	}
	return quote != 0
}

// lineBounds returns the line around offset i, without its terminator
// ("\n" or "\r\n").
func lineBounds(doc string, i int) (start, end int) {
	start = strings.LastIndexByte(doc[:i], '\n') + 1
	end = strings.IndexByte(doc[i:], '\n')
	if end < 0 {
		end = len(doc)
	} else {
		end += i
	}
	if end > start && doc[end-1] == '\r' {
		end--
	}
	return start, end
}

// isWordByte: ASCII letters, digits and '_' only, so "修复agent!" (no
// space between words in CJK) is still a task.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// clip cuts s to at most n bytes at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// Found is a task as every face shows it: the comment marked, an action
// titled Title that runs Prompt with the lines ContextFrom..ContextTo as
// its editor context.
type Found struct {
	Task
	// ContextFrom and ContextTo are the lines ContextLines around the
	// comment; ContextTo may pass the last line, meaning the end.
	ContextFrom, ContextTo int
	// Title names the action that runs the task, short enough for a menu.
	Title string
	// Message is what the editor shows on the comment.
	Message string
	// Prompt is the run's prompt (Prompt).
	Prompt string
}

// maxTitleBytes bounds a Title's words.
const maxTitleBytes = 80

// FindIn scans doc, the text of the file named path (the name picks the
// comment syntax), and describes each task for a face.
func FindIn(path, doc string) []Found {
	tasks := Scan(doc, SyntaxFor(path))
	if len(tasks) == 0 {
		return nil
	}
	out := make([]Found, len(tasks))
	for i, t := range tasks {
		title := "Agent: " + text.Clip(t.Words, maxTitleBytes)
		out[i] = Found{Task: t, ContextFrom: max(t.FirstLine-ContextLines, 0), ContextTo: t.Line + ContextLines,
			Title: title, Message: "Task for the agent: " + t.Words + " (code action “" + title + "” runs it)", Prompt: Prompt(t)}
	}
	return out
}

// Prompt is the prompt of a run doing t: the words, where they were
// written, and that the comment goes once the task is done. The run's
// editor context carries the code around the comment.
func Prompt(t Task) string {
	return fmt.Sprintf("%s\n\nThis task was written in the file as a comment ending in %q (line %d). "+
		"Do it in the code around the comment, and remove that comment (all of its lines) in the same change.",
		t.Words, Marker, t.Line+1)
}
