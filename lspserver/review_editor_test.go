package lspserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
)

// fakeEditor is the editor side of review tests. It keeps its own copy of
// every open document and answers workspace/applyEdit like a real editor:
// the edits are applied to its copy with internal/text in the session's
// encoding and reported back with didChange (before the answer, as VS Code
// and Neovim do), so the server sees exactly what an editor would send.
type fakeEditor struct {
	*session
	enc text.Encoding

	mu     sync.Mutex
	docs   map[uri.URI]*editorDoc // open documents
	hidden map[uri.URI]string     // buffers edited without didOpen (Neovim's unattached buffers)
	edits  []protocol.WorkspaceEdit
	held   []heldChange // applyLate: didChanges not sent yet
	mode   applyMode
	reason string // failureReason in refuse mode
	// openOnEdit: an edit to a document that is not open opens it first
	// (didOpen with the disk text), like VS Code; otherwise it goes to a
	// hidden buffer, like Neovim 0.7 for buffers the client is not
	// attached to.
	openOnEdit bool
}

type editorDoc struct {
	version int32
	text    string
}

// applyMode is how the fake editor answers workspace/applyEdit.
type applyMode int

const (
	applyNormally applyMode = iota // apply, refusing stale versioned edits like VS Code
	applyRefuse                    // answer applied:false with reason
	applyIgnore                    // answer applied:true and change nothing (Neovim 0.7 on a newer buffer)
	// applyLate applies the edit to the editor's copy but holds its
	// didChange until the test sends it (releaseHeld), after the accept
	// command's answer: eglot sends it from an idle timer, and Helix and
	// kak-lsp also report an edit only after the request that caused it.
	applyLate
)

// heldChange is the didChange of an edit applied in applyLate mode, not
// sent yet: the content changes (the edit's, then what the user typed
// after it, as one notification) and the document as it was before.
type heldChange struct {
	u             uri.URI
	version       int32
	changes       []protocol.TextDocumentContentChangeEvent
	before        string
	beforeVersion int32
}

// reviewOpts shape a review session.
type reviewOpts struct {
	encodings []string                     // general.positionEncodings
	caps      *protocol.ClientCapabilities // nil: lsptest.DefaultCapabilities
}

// newReviewSession starts a server and a fake editor on a fresh folder.
func newReviewSession(t *testing.T, o reviewOpts) *fakeEditor {
	t.Helper()
	s := newSession(t, lsptest.InitOptions{PositionEncodings: o.encodings, Capabilities: o.caps}, lspserver.Options{})
	enc := text.UTF16
	if len(o.encodings) > 0 {
		var ok bool
		if enc, ok = text.ParseEncoding(o.encodings[0]); !ok {
			t.Fatalf("bad encoding %q", o.encodings[0])
		}
	}
	return editorFor(s, enc)
}

// editorFor attaches a fake editor to an initialized session whose
// negotiated encoding is enc.
func editorFor(s *session, enc text.Encoding) *fakeEditor {
	e := &fakeEditor{session: s, enc: enc, docs: map[uri.URI]*editorDoc{}, hidden: map[uri.URI]string{}}
	s.c.Handle(protocol.MethodWorkspaceApplyEdit, e.applyEdit)
	return e
}

func (e *fakeEditor) setMode(m applyMode, reason string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.mode, e.reason = m, reason
}

// open writes name on disk and opens it.
func (e *fakeEditor) open(t *testing.T, name, content string) uri.URI {
	t.Helper()
	e.write(t, name, content)
	u := e.uri(name)
	e.mu.Lock()
	e.docs[u] = &editorDoc{version: 1, text: content}
	e.mu.Unlock()
	if err := e.c.DidOpen(lsptest.Context(t), u, "go", 1, content); err != nil {
		t.Fatal(err)
	}
	// Staging goes straight to the server (not over the wire): make sure
	// the didOpen was processed first.
	if _, err := e.c.Document(lsptest.Context(t), u); err != nil {
		t.Fatal(err)
	}
	return u
}

// text is the editor's copy of an open document (or hidden buffer).
func (e *fakeEditor) text(t *testing.T, u uri.URI) string {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if d, ok := e.docs[u]; ok {
		return d.text
	}
	if h, ok := e.hidden[u]; ok {
		return h
	}
	t.Fatalf("%s is neither open nor edited", u)
	return ""
}

// typeAt is the user typing: it replaces the byte span [start, end) of the
// document with s and sends the incremental didChange.
func (e *fakeEditor) typeAt(t *testing.T, u uri.URI, start, end int, s string) {
	t.Helper()
	e.mu.Lock()
	d := e.docs[u]
	ix := text.NewIndex(d.text)
	r := toRange(ix.Range(start, end, e.enc))
	d.text = d.text[:start] + s + d.text[end:]
	d.version++
	v := d.version
	e.mu.Unlock()
	change := &protocol.TextDocumentContentChangePartial{Range: r, Text: s}
	if err := e.c.DidChange(lsptest.Context(t), u, v, change); err != nil {
		t.Fatal(err)
	}
}

// stage makes run runID propose proposed for name (base: the file's text
// when the run read it; created: a new file).
func (e *fakeEditor) stage(runID, name, base, proposed string, created bool) {
	lspserver.StagePreview(e.srv, runID, tools.StagedFile{
		Path: filepath.Join(e.root, name), Base: base, Text: proposed, Created: created,
	})
}

// applyEdit answers workspace/applyEdit.
func (e *fakeEditor) applyEdit(m lsptest.Message) (any, *lsptest.Error) {
	var p protocol.ApplyWorkspaceEditParams
	if err := m.DecodeParams(&p); err != nil {
		return nil, &lsptest.Error{Code: lsptest.CodeInvalidParams, Message: err.Error()}
	}
	e.mu.Lock()
	e.edits = append(e.edits, p.Edit)
	mode, reason := e.mode, e.reason
	e.mu.Unlock()
	switch mode {
	case applyRefuse:
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
	case applyIgnore:
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	}
	// applyLate applies as usual; applyTextEdits holds the didChange.
	if err := e.apply(p.Edit); err != nil {
		msg := err.Error()
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &msg}, nil
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

func (e *fakeEditor) apply(we protocol.WorkspaceEdit) error {
	if len(we.DocumentChanges) == 0 {
		for u, edits := range we.Changes {
			if err := e.applyTextEdits(u, nil, edits); err != nil {
				return err
			}
		}
		return nil
	}
	for _, dc := range we.DocumentChanges {
		switch x := dc.(type) {
		case *protocol.CreateFile:
			path := x.URI.FsPath()
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				if err := os.WriteFile(path, nil, 0o644); err != nil {
					return err
				}
			}
		case *protocol.DeleteFile:
			// Like VS Code: the file goes, and so does its open document.
			if err := os.Remove(x.URI.FsPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			e.mu.Lock()
			_, open := e.docs[x.URI]
			delete(e.docs, x.URI)
			e.mu.Unlock()
			if open {
				if err := e.c.DidClose(context.Background(), x.URI); err != nil {
					return err
				}
			}
		case *protocol.TextDocumentEdit:
			var edits []protocol.TextEdit
			for _, el := range x.Edits {
				switch te := el.(type) {
				case *protocol.TextEdit:
					edits = append(edits, *te)
				case *protocol.AnnotatedTextEdit:
					edits = append(edits, te.TextEdit)
				default:
					return errors.New("fake editor: unsupported edit element")
				}
			}
			if err := e.applyTextEdits(x.TextDocument.URI, x.TextDocument.Version, edits); err != nil {
				return err
			}
		default:
			return errors.New("fake editor: unsupported document change")
		}
	}
	return nil
}

// applyTextEdits applies edits (all relative to the document before them)
// to u, refusing a version that is not the document's, like VS Code.
func (e *fakeEditor) applyTextEdits(u uri.URI, version *int32, edits []protocol.TextEdit) error {
	ctx := context.Background()
	e.mu.Lock()
	d, open := e.docs[u]
	if !open && e.openOnEdit {
		content, err := os.ReadFile(u.FsPath())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			e.mu.Unlock()
			return err
		}
		d = &editorDoc{version: 1, text: string(content)}
		e.docs[u] = d
		open = true
		if err := e.c.DidOpen(ctx, u, "go", 1, d.text); err != nil {
			e.mu.Unlock()
			return err
		}
	}
	if !open {
		before, ok := e.hidden[u]
		if !ok {
			content, err := os.ReadFile(u.FsPath())
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				e.mu.Unlock()
				return err
			}
			before = string(content)
		}
		after, _ := applyProtocolEdits(before, edits, e.enc)
		e.hidden[u] = after
		e.mu.Unlock()
		return nil
	}
	if version != nil && *version != d.version {
		e.mu.Unlock()
		return errors.New("fake editor: document version mismatch")
	}
	before, beforeVersion := d.text, d.version
	after, changes := applyProtocolEdits(d.text, edits, e.enc)
	d.text = after
	d.version++
	v := d.version
	if e.mode == applyLate {
		e.held = append(e.held, heldChange{u: u, version: v, changes: changes, before: before, beforeVersion: beforeVersion})
		e.mu.Unlock()
		return nil
	}
	e.mu.Unlock()
	return e.c.DidChange(ctx, u, v, changes...)
}

// typeHeld is the user typing after an edit whose didChange is held: it
// replaces the byte span [start, end) of the editor's copy of u with s and
// adds the change to the held didChange, which then reports the edit and
// the typing in one notification (as eglot's idle timer does).
func (e *fakeEditor) typeHeld(t *testing.T, u uri.URI, start, end int, s string) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	i := len(e.held) - 1
	for ; i >= 0 && e.held[i].u != u; i-- {
	}
	if i < 0 {
		t.Fatalf("no held didChange for %s", u)
	}
	d := e.docs[u]
	r := toRange(text.NewIndex(d.text).Range(start, end, e.enc))
	d.text = d.text[:start] + s + d.text[end:]
	d.version++
	e.held[i].version = d.version
	e.held[i].changes = append(e.held[i].changes, &protocol.TextDocumentContentChangePartial{Range: r, Text: s})
}

// releaseHeld sends the held didChanges, in order, and reports how many.
func (e *fakeEditor) releaseHeld(t *testing.T) int {
	t.Helper()
	e.mu.Lock()
	held := e.held
	e.held = nil
	e.mu.Unlock()
	for _, h := range held {
		if err := e.c.DidChange(lsptest.Context(t), h.u, h.version, h.changes...); err != nil {
			t.Fatal(err)
		}
	}
	return len(held)
}

// dropHeld forgets the held didChanges and takes the editor's copies
// back to what they were before the edits: an editor that answered
// applied:true for an edit that never made it into its buffer.
func (e *fakeEditor) dropHeld(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.held) - 1; i >= 0; i-- {
		h := e.held[i]
		e.docs[h.u].text, e.docs[h.u].version = h.before, h.beforeVersion
	}
	e.held = nil
}

// applyProtocolEdits applies LSP TextEdits (all relative to before, ranges
// in enc) and returns the result and the equivalent didChange content
// changes (last edit first, so each range is still valid when applied in
// order).
func applyProtocolEdits(before string, edits []protocol.TextEdit, enc text.Encoding) (string, []protocol.TextDocumentContentChangeEvent) {
	ix := text.NewIndex(before)
	type span struct {
		start, end, i int
		e             protocol.TextEdit
	}
	spans := make([]span, len(edits))
	for i, ed := range edits {
		s, en := ix.RangeOffsets(fromRange(ed.Range), enc)
		spans[i] = span{s, en, i, ed}
	}
	// Last first; insertions at one point keep their array order (LSP).
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start > spans[j].start
		}
		return spans[i].i > spans[j].i
	})
	out := before
	var changes []protocol.TextDocumentContentChangeEvent
	for _, sp := range spans {
		out = out[:sp.start] + sp.e.NewText + out[sp.end:]
		changes = append(changes, &protocol.TextDocumentContentChangePartial{Range: sp.e.Range, Text: sp.e.NewText})
	}
	return out, changes
}

func toRange(r text.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: r.Start.Line, Character: r.Start.Character},
		End:   protocol.Position{Line: r.End.Line, Character: r.End.Character},
	}
}

func fromRange(r protocol.Range) text.Range {
	return text.Range{
		Start: text.Position{Line: r.Start.Line, Character: r.Start.Character},
		End:   text.Position{Line: r.End.Line, Character: r.End.Character},
	}
}

// lastEdit is the most recent WorkspaceEdit the editor received.
func (e *fakeEditor) lastEdit(t *testing.T) protocol.WorkspaceEdit {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.edits) == 0 {
		t.Fatal("the editor received no workspace/applyEdit")
	}
	return e.edits[len(e.edits)-1]
}

func (e *fakeEditor) editCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.edits)
}

// acceptResult mirrors agentls.accept's result.
type acceptResult struct {
	Applied       bool     `json:"applied"`
	FailureReason string   `json:"failureReason"`
	AppliedHunks  []string `json:"appliedHunks"`
	Verifying     bool     `json:"verifying"`
	Conflicts     []struct {
		URI    string `json:"uri"`
		HunkID string `json:"hunkId"`
		Reason string `json:"reason"`
	} `json:"conflicts"`
}

// reviewArgs mirrors the arguments of agentls.accept / agentls.reject.
type reviewArgs struct {
	RunID  string `json:"runId,omitempty"`
	URI    string `json:"uri,omitempty"`
	HunkID string `json:"hunkId,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (e *fakeEditor) accept(t *testing.T, a reviewArgs) acceptResult {
	t.Helper()
	var res acceptResult
	if err := e.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandAccept, a), &res); err != nil {
		t.Fatalf("agentls.accept %+v: %v", a, err)
	}
	return res
}

func (e *fakeEditor) reject(t *testing.T, a reviewArgs) int {
	t.Helper()
	var res struct {
		Rejected *int `json:"rejected"`
	}
	if err := e.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandReject, a), &res); err != nil {
		t.Fatalf("agentls.reject %+v: %v", a, err)
	}
	if res.Rejected == nil {
		t.Fatal("agentls.reject answered without \"rejected\"")
	}
	return *res.Rejected
}

// proposals calls agentls/proposals (u "" lists all).
func (e *fakeEditor) proposals(t *testing.T, u uri.URI) []lspserver.ProposalInfo {
	t.Helper()
	var res lspserver.ProposalsResult
	if err := e.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{URI: u}, &res); err != nil {
		t.Fatalf("agentls/proposals: %v", err)
	}
	return res.Proposals
}

// hunks returns the hunks of the single proposal for u.
func (e *fakeEditor) hunks(t *testing.T, u uri.URI) []lspserver.HunkInfo {
	t.Helper()
	ps := e.proposals(t, u)
	if len(ps) != 1 {
		t.Fatalf("%d proposals for %s, want 1: %+v", len(ps), u, ps)
	}
	return ps[0].Hunks
}

func (e *fakeEditor) codeLens(t *testing.T, u uri.URI) []protocol.CodeLens {
	t.Helper()
	var res []protocol.CodeLens
	err := e.c.Call(lsptest.Context(t), protocol.MethodTextDocumentCodeLens,
		&protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &res)
	if err != nil {
		t.Fatalf("codeLens: %v", err)
	}
	return res
}

func (e *fakeEditor) codeActions(t *testing.T, u uri.URI, r protocol.Range) []protocol.CodeAction {
	t.Helper()
	var raw []json.RawMessage
	err := e.c.Call(lsptest.Context(t), protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: r,
	}, &raw)
	if err != nil {
		t.Fatalf("codeAction: %v", err)
	}
	var out []protocol.CodeAction
	for _, m := range raw {
		var a protocol.CodeAction
		if err := protocol.Unmarshal(m, &a); err != nil {
			t.Fatalf("decode code action %s: %v", m, err)
		}
		out = append(out, a)
	}
	return out
}

// commandArgs decodes a command's arguments[0].
func commandArgs(t *testing.T, c protocol.Command) reviewArgs {
	t.Helper()
	if len(c.Arguments) != 1 {
		t.Fatalf("command %s has %d arguments, want 1", c.Command, len(c.Arguments))
	}
	var a reviewArgs
	if err := json.Unmarshal(c.Arguments[0], &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// rangeText is the text of r in content, positions in enc.
func rangeText(content string, r protocol.Range, enc text.Encoding) string {
	s, en := text.NewIndex(content).RangeOffsets(fromRange(r), enc)
	return content[s:en]
}
