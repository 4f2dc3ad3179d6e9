package core

import (
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// Problem is one problem a run's change introduced, as the editor gets it
// in agentls/runEvent "problems" and in agentls/proposals: the range is in
// the file's proposed text (the text the language server checked), in the
// session's position encoding; severity is LSP's DiagnosticSeverity
// (1 error, 2 warning).
type Problem struct {
	Range    protocol.Range              `json:"range"`
	Severity protocol.DiagnosticSeverity `json:"severity"`
	Message  string                      `json:"message"`
	Source   string                      `json:"source,omitempty"`
}

// Problems converts ps, whose ranges have byte columns over content (the
// text the language server checked: tools.FileProblems.Text), for a client
// using enc.
func Problems(ps []tools.Problem, content string, enc text.Encoding) []Problem {
	if len(ps) == 0 {
		return []Problem{}
	}
	ix := text.NewIndex(content)
	conv := func(p text.Position) protocol.Position {
		return ToProtocolPosition(ix.Position(ix.Offset(p, text.UTF8), enc))
	}
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = Problem{
			Range:    protocol.Range{Start: conv(p.Range.Start), End: conv(p.Range.End)},
			Severity: severity(p.Severity),
			Message:  p.Message,
			Source:   p.Source,
		}
	}
	return out
}

func severity(s string) protocol.DiagnosticSeverity {
	switch s {
	case "warning":
		return protocol.DiagnosticSeverityWarning
	case "information":
		return protocol.DiagnosticSeverityInformation
	case "hint":
		return protocol.DiagnosticSeverityHint
	}
	return protocol.DiagnosticSeverityError
}
