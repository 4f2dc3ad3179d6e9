// Package text holds the position arithmetic every other package relies on:
// line indexes over UTF-8 text, conversion between byte offsets and LSP
// positions in a negotiated encoding, incremental change application, and
// minimal edits between two versions of a text.
//
// It is a leaf package: it imports nothing from agentls, so lspserver, agent
// and tools can all share one conversion layer.
package text

// Encoding is the unit LSP positions count characters in. The zero value is
// UTF-16, the LSP default, so an unset encoding is always correct for
// clients that negotiate nothing.
type Encoding int

// The position encodings LSP 3.17+ can negotiate.
const (
	UTF16 Encoding = iota // "utf-16": UTF-16 code units (LSP default)
	UTF8                  // "utf-8": bytes
	UTF32                 // "utf-32": Unicode code points
)

// Position is a zero-based (line, character) pair, character counted in an
// Encoding. JSON tags match LSP so the type can go on the wire as is.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is a half-open span between two positions, as in LSP.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Edit replaces Range with NewText; it is an LSP TextEdit in our own type so
// that tools need not import the protocol package.
type Edit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// Change is one entry of an incremental didChange: a nil Range replaces the
// whole text.
type Change struct {
	Range *Range
	Text  string
}
