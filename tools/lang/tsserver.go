package lang

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
)

// tsserverRequest is typescript-language-server's command that forwards a
// request to tsserver.
//
// tsls pushes diagnostics, but only when they change: a file whose
// diagnostics were empty and stay empty is never published again
// (FileDiagnostics.update in tsls 5.3), so "no publication yet" cannot be
// told from "still clean" and waiting for one after a clean edit runs into
// the wait. tsserver itself answers diagnostics requests synchronously and
// in order with the changes tsls forwarded, so agentls pulls them through
// this command instead: syntactic and semantic diagnostics of one file, for
// exactly the text the server holds.
const tsserverRequest = "typescript.tsserverRequest"

// tsDiag is one tsserver diagnostic: 1-based line and UTF-16 offset.
type tsDiag struct {
	Start    tsLoc  `json:"start"`
	End      tsLoc  `json:"end"`
	Text     string `json:"text"`
	Code     int    `json:"code"`
	Category string `json:"category"`
}

type tsLoc struct {
	Line   int `json:"line"`
	Offset int `json:"offset"`
}

// tsResponse is a tsserver response as tsls returns it.
type tsResponse struct {
	Success bool     `json:"success"`
	Message string   `json:"message"`
	Body    []tsDiag `json:"body"`
}

// tsserverDiags asks tsserver for d's syntactic and semantic diagnostics.
func (c *client) tsserverDiags(ctx context.Context, d *doc) ([]diag, int, error) {
	var out []diag
	c.mu.Lock()
	content := d.text
	c.mu.Unlock()
	ix := text.NewIndex(content)
	for _, cmd := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		name, _ := json.Marshal(cmd)
		file, _ := json.Marshal(map[string]any{"file": string(d.uri)})
		var raw json.RawMessage
		if err := protocol.Call(ctx, c.conn, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
			Command: tsserverRequest, Arguments: []protocol.LSPAny{name, file},
		}, &raw); err != nil {
			return nil, 0, c.callError(ctx, err)
		}
		var res tsResponse
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, 0, fmt.Errorf("answered with something that is not a tsserver response: %s", oneLine(err.Error()))
		}
		if !res.Success {
			return nil, 0, errors.New("tsserver: " + oneLine(res.Message))
		}
		for _, td := range res.Body {
			out = append(out, diag{
				rng:      protocol.Range{Start: c.tsPos(ix, td.Start), End: c.tsPos(ix, td.End)},
				severity: tsSeverity(td.Category),
				message:  oneLine(td.Text),
				source:   "typescript",
				code:     fmt.Sprint(td.Code),
			})
		}
	}
	total := len(out)
	if len(out) > maxStoredDiags {
		out = out[:maxStoredDiags]
	}
	c.mu.Lock()
	d.pulled, d.pulledAt, d.hasPulled = out, d.version, true
	c.mu.Unlock()
	return out, total, nil
}

// tsPos converts a tsserver location (1-based, UTF-16 offsets) to an LSP
// position in the client's encoding.
func (c *client) tsPos(ix *text.Index, l tsLoc) protocol.Position {
	p := text.Position{Line: uint32(max(l.Line-1, 0)), Character: uint32(max(l.Offset-1, 0))}
	if c.enc != text.UTF16 {
		p = ix.Position(ix.Offset(p, text.UTF16), c.enc)
	}
	return protocol.Position{Line: p.Line, Character: p.Character}
}

func tsSeverity(category string) protocol.DiagnosticSeverity {
	switch category {
	case "warning":
		return protocol.DiagnosticSeverityWarning
	case "suggestion":
		return protocol.DiagnosticSeverityHint
	case "message":
		return protocol.DiagnosticSeverityInformation
	}
	return protocol.DiagnosticSeverityError
}
