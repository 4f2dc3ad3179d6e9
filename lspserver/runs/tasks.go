package runs

import (
	"encoding/json"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/aicomment"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// Tasks from a comment (agent/aicomment): a comment ending in "agent!" is
// marked by an Information diagnostic (source "agentls", code
// "agent-task", docs/protocol.md), and a code action on its lines,
// "Agent: <the comment's words>", runs it with the lines around it as the
// editor context. This is how clients that cannot type a prompt (Helix,
// eglot) start a task of their own.
//
// TaskDiagnostics runs on review's publisher, which scans open documents
// after didOpen and when typing pauses, and keeps what it found per
// document, so CodeAction answers from that without reading the text.

// TaskCode is the code of a task comment's diagnostic.
const TaskCode = "agent-task"

// taskEntry is one task comment, in the negotiated encoding.
type taskEntry struct {
	rng     protocol.Range // the comment
	context protocol.Range // the lines around it, the run's editor context
	title   string
	prompt  string
	diag    protocol.Diagnostic
}

// taskBook is the latest scan of every open document that has tasks.
type taskBook struct {
	mu     sync.Mutex
	byPath map[string][]taskEntry
}

// TaskDiagnostics is review's DocumentDiagnostics source (connected by the
// wiring): the task comments of path's text, remembered for CodeAction.
func (rs *Runs) TaskDiagnostics(path, content string, open bool) []protocol.Diagnostic {
	var found []aicomment.Found
	if open {
		found = aicomment.FindIn(path, content)
	}
	var entries []taskEntry
	var out []protocol.Diagnostic
	if len(found) > 0 {
		enc := rs.core.Session().Encoding
		ix := text.NewIndex(content)
		for _, t := range found {
			e := taskEntry{
				rng:     core.ToProtocolRange(ix.Range(t.Start, t.End, enc)),
				context: core.ToProtocolRange(ix.Range(ix.LineStart(t.ContextFrom), ix.LineEnd(t.ContextTo), enc)),
				title:   t.Title,
				prompt:  t.Prompt,
			}
			data, _ := json.Marshal(struct {
				Task string `json:"task"`
			}{t.Words}) // a string only: cannot fail
			e.diag = protocol.Diagnostic{
				Range:    e.rng,
				Severity: protocol.DiagnosticSeverityInformation,
				Source:   protocol.NewOptional("agentls"),
				Code:     protocol.String(TaskCode),
				Message:  protocol.String(t.Message),
				Data:     data,
			}
			entries = append(entries, e)
			out = append(out, e.diag)
		}
	}
	b := &rs.tasks
	b.mu.Lock()
	if len(entries) > 0 {
		if b.byPath == nil {
			b.byPath = map[string][]taskEntry{}
		}
		b.byPath[path] = entries
	} else {
		delete(b.byPath, path)
	}
	b.mu.Unlock()
	rs.core.ActionsChanged() // taskActions read the book
	return out
}

// taskActions are the "Agent: <words>" actions of the task comments on
// the lines of r in the document at path: one quickfix per comment,
// listing its diagnostic, so clients that offer fixes per diagnostic
// (eglot, Helix) show it there.
func (rs *Runs) taskActions(path, u string, r protocol.Range, lazy bool) []protocol.CommandOrCodeAction {
	b := &rs.tasks
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []protocol.CommandOrCodeAction
	for _, e := range b.byPath[path] {
		if e.rng.End.Line < r.Start.Line || e.rng.Start.Line > r.End.Line {
			continue
		}
		out = append(out, agentAction(lazy, e.title, protocol.CodeActionKindQuickFix, e.prompt, u, e.context, []protocol.Diagnostic{e.diag}))
	}
	return out
}

// TaskMaps is how many documents the task book holds, for tests proving
// didClose empties it.
func (rs *Runs) TaskMaps() int {
	rs.tasks.mu.Lock()
	defer rs.tasks.mu.Unlock()
	return len(rs.tasks.byPath)
}
