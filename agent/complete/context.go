package complete

import (
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// Context windows around the cursor. A FIM model needs the code it
// continues and what follows; a few thousand bytes hold the enclosing
// function in most files and keep a local model's prompt processing in
// the tens of milliseconds.
const (
	prefixWindowBytes = 6000
	suffixWindowBytes = 2000
	// chunkLines is the height of a chunk of another file: the code around
	// the place the user last looked at or edited there.
	chunkLines = 30
	// maxPlaces bounds the places remembered (most recent first).
	maxPlaces = 16
	// bytesPerToken estimates tokens for the context budget; the agent's
	// counter falls back to the same figure, and a budget needs no more.
	bytesPerToken = 4
)

// windows cuts text at off into the prefix and suffix windows: the prefix
// starts at a line start, the suffix ends at a line end, so no window
// begins or ends inside a token the model would misread.
func windows(text string, off int) (prefix, suffix string) {
	prefix, suffix = text[:off], text[off:]
	if len(prefix) > prefixWindowBytes {
		cut := len(prefix) - prefixWindowBytes
		if i := strings.IndexByte(prefix[cut:], '\n'); i >= 0 {
			cut += i + 1
		}
		prefix = prefix[cut:]
	}
	if len(suffix) > suffixWindowBytes {
		cut := suffixWindowBytes
		if i := strings.LastIndexByte(suffix[:cut], '\n'); i >= 0 {
			cut = i + 1
		}
		suffix = suffix[:cut]
	}
	return prefix, suffix
}

// place is where the user was in a document: a line they edited or asked
// a completion at.
type place struct {
	path string
	line int
}

// chunk is a piece of another open file given to the model as context.
type chunk struct {
	name string // as the prompt names the file
	text string
}

// linesAround returns the chunkLines lines of doc around line.
func linesAround(doc string, line int) string {
	return text.Lines(doc, max(line-chunkLines/2, 0), chunkLines)
}

// lineOf is the 0-based line of byte offset off in text.
func lineOf(text string, off int) int { return strings.Count(text[:off], "\n") }

// commentFor is the line comment of a file's language, to name a context
// chunk's file in families without a file separator token.
func commentFor(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".py", ".sh", ".bash", ".rb", ".yaml", ".yml", ".toml", ".pl", ".r", ".jl", ".ex", ".exs", ".nix", ".ps1", ".cmake", ".mk", ".dockerfile":
		return "#"
	case ".lua", ".sql", ".hs", ".elm", ".ada":
		return "--"
	case ".lisp", ".el", ".clj", ".scm":
		return ";;"
	case ".html", ".xml", ".md", ".vue", ".svelte":
		return "<!--"
	}
	return "//"
}

// renderChunks writes the chunks as the prompt's preamble, in the
// family's file form.
func renderChunks(chunks []chunk, t Template, current string) string {
	if len(chunks) == 0 {
		return ""
	}
	var b strings.Builder
	for _, c := range chunks {
		if t.FileSep != "" {
			b.WriteString(t.FileSep)
			b.WriteString(c.name)
			b.WriteByte('\n')
		} else {
			cm := commentFor(current)
			b.WriteString(cm + " " + c.name)
			if cm == "<!--" {
				b.WriteString(" -->")
			}
			b.WriteByte('\n')
		}
		b.WriteString(c.text)
		if !strings.HasSuffix(c.text, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	if t.FileSep != "" {
		// The current file follows as one more file of the repository.
		b.WriteString(t.FileSep)
		b.WriteString(current)
		b.WriteByte('\n')
	}
	return b.String()
}
