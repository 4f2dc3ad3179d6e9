package lang

import (
	"cmp"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// The language tools' answers to a program (tools.WantsData: the script
// tool), so that it can filter and count: lists of dicts with 1-based
// lines and columns in characters (code points), as the text results show
// them. The text for the model is unchanged.

// diagnosticValue is one diagnostic in diagnostics' answer to a program.
type diagnosticValue struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"` // error, warning, information, hint
	Message  string `json:"message"`
	Source   string `json:"source"`
	Code     string `json:"code"`
}

// locationValue is one place in definition's and references' answers.
// Column is null and Text empty for a file the model may not see (outside
// the workspace, a secret).
type locationValue struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column *int   `json:"column"`
	Text   string `json:"text"`
}

// symbolValue is one symbol in symbols' answer: an outline (Depth and
// Container say where it nests) or a workspace search (Depth 0, Container
// as the server gives it).
type symbolValue struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    *int   `json:"column"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Depth     int    `json:"depth"`
	Container string `json:"container"`
}

// diagnosticValues converts a file's diagnostics (every severity, by
// position) for a program.
func diagnosticValues(path, content string, ds []diag, enc text.Encoding) []diagnosticValue {
	out := make([]diagnosticValue, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagnosticValue{Path: path, Line: int(d.rng.Start.Line) + 1, Column: column(content, d.rng.Start, enc),
			Severity: severityName(d.sev()), Message: d.message, Source: d.source, Code: d.code})
	}
	slices.SortStableFunc(out, func(a, b diagnosticValue) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return out
}

// locationValues converts locations (positions in enc) for a program:
// sorted by path, line and column, each place once.
func (r *Run) locationValues(locs []protocol.Location, enc text.Encoding) []locationValue {
	out := make([]locationValue, 0, len(locs))
	fileOf := r.filesOf()
	for _, l := range locs {
		path, content, ok := fileOf(l.URI)
		v := locationValue{Path: path, Line: int(l.Range.Start.Line) + 1}
		if ok {
			col := column(content, l.Range.Start, enc)
			v.Column = &col
			_, t := lineAt(content, l.Range.Start)
			v.Text = clipLine(t)
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b locationValue) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(colOf(a.Column), colOf(b.Column)))
	})
	return slices.CompactFunc(out, func(a, b locationValue) bool {
		return a.Path == b.Path && a.Line == b.Line && colOf(a.Column) == colOf(b.Column)
	})
}

func colOf(c *int) int {
	if c == nil {
		return 0
	}
	return *c
}

// columnIn is the 1-based character column of p in content, nil when the
// content is not known.
func columnIn(content string, known bool, p protocol.Position, enc text.Encoding) *int {
	if !known {
		return nil
	}
	c := column(content, p, enc)
	return &c
}

// tooMany is the error a program gets instead of a silently shortened
// list.
func tooMany(what string, n int) tools.Result {
	return tools.Errorf("%s: %d results, more than the %d a program may get; narrow the query", what, n, tools.DataMaxMatches)
}

// withData sets res.Data to v for a program, or turns res into the
// tooMany error when v has more than tools.DataMaxMatches entries.
func withData[T any](res tools.Result, what string, v []T) tools.Result {
	if len(v) > tools.DataMaxMatches {
		return tooMany(what, len(v))
	}
	res.Data = v
	return res
}
