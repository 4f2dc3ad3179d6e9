package lspserver_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// runEditor plays the editor side of text synchronisation and
// workspace/applyEdit the way VS Code does: it keeps its own copy of every
// open document, checks the version of each TextDocumentEdit, applies the
// edits, reports them to the server with didChange (one content change per
// TextEdit, last first) and only then answers applied:true. A file that is
// not open is opened first (didOpen with its disk text); a CreateFile opens
// an empty document. Nothing is ever written to disk.
type runEditor struct {
	c   *lsptest.Client
	enc text.Encoding

	mu      sync.Mutex
	docs    map[uri.URI]*runDoc
	refuse  string                              // non-empty: answer applied:false with this reason
	applied []protocol.ApplyWorkspaceEditParams // every applyEdit received, in order
	raw     []lsptest.Message
	before  func() // called before applying an edit (tests hold edits with it)
}

type runDoc struct {
	version int32
	text    string
}

func newRunEditor(c *lsptest.Client, enc text.Encoding) *runEditor {
	e := &runEditor{c: c, enc: enc, docs: map[uri.URI]*runDoc{}}
	c.Handle(protocol.MethodWorkspaceApplyEdit, e.handleApply)
	return e
}

// open opens a document with text (version 1).
func (e *runEditor) open(t testing.TB, u uri.URI, content string) {
	t.Helper()
	e.mu.Lock()
	e.docs[u] = &runDoc{version: 1, text: content}
	e.mu.Unlock()
	if err := e.c.DidOpen(context.Background(), u, "go", 1, content); err != nil {
		t.Fatal(err)
	}
}

// typeAt replaces the range (sl,sc)-(el,ec) of an open document with s, as
// the user typing would.
func (e *runEditor) typeAt(t testing.TB, u uri.URI, sl, sc, el, ec uint32, s string) {
	t.Helper()
	e.mu.Lock()
	d := e.docs[u]
	r := text.Range{Start: text.Position{Line: sl, Character: sc}, End: text.Position{Line: el, Character: ec}}
	next, err := text.ApplyChanges(d.text, []text.Change{{Range: &r, Text: s}}, e.enc)
	if err != nil {
		e.mu.Unlock()
		t.Fatal(err)
	}
	d.text = next
	d.version++
	v := d.version
	e.mu.Unlock()
	if err := e.c.DidChange(context.Background(), u, v, lsptest.Partial(sl, sc, el, ec, s)); err != nil {
		t.Fatal(err)
	}
}

// text returns the editor's copy of a document ("" and false if not open).
func (e *runEditor) text(u uri.URI) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[u]
	if !ok {
		return "", false
	}
	return d.text, true
}

func (e *runEditor) edits() []protocol.ApplyWorkspaceEditParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.ApplyWorkspaceEditParams(nil), e.applied...)
}

func (e *runEditor) handleApply(m lsptest.Message) (any, *lsptest.Error) {
	var p protocol.ApplyWorkspaceEditParams
	if err := m.DecodeParams(&p); err != nil {
		return nil, &lsptest.Error{Code: lsptest.CodeInvalidParams, Message: err.Error()}
	}
	e.mu.Lock()
	e.applied = append(e.applied, p)
	e.raw = append(e.raw, m)
	refuse, before := e.refuse, e.before
	e.mu.Unlock()
	if before != nil {
		before()
	}
	if refuse != "" {
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &refuse}, nil
	}
	if err := e.apply(p.Edit); err != nil {
		reason := err.Error()
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

// apply applies a WorkspaceEdit (documentChanges) all or nothing.
func (e *runEditor) apply(we protocol.WorkspaceEdit) error {
	type step struct {
		u       uri.URI
		opened  bool
		text    string
		version int32
		changes []text.Change
	}
	e.mu.Lock()
	var steps []step
	created := map[uri.URI]bool{}
	for _, dc := range we.DocumentChanges {
		switch x := dc.(type) {
		case *protocol.CreateFile:
			if _, err := os.Stat(x.URI.FsPath()); err == nil {
				e.mu.Unlock()
				return fmt.Errorf("%s exists", x.URI)
			}
			created[x.URI] = true
		case *protocol.TextDocumentEdit:
			u := x.TextDocument.URI
			d, open := e.docs[u]
			st := step{u: u}
			switch {
			case open:
				if x.TextDocument.Version != nil && *x.TextDocument.Version != d.version {
					e.mu.Unlock()
					return fmt.Errorf("version mismatch for %s: edit for %d, document at %d", u, *x.TextDocument.Version, d.version)
				}
				st.text, st.version = d.text, d.version
			case created[u]:
				st.opened, st.version = true, 1
			default:
				if x.TextDocument.Version != nil {
					e.mu.Unlock()
					return fmt.Errorf("versioned edit for %s, which is not open", u)
				}
				b, err := os.ReadFile(u.FsPath())
				if err != nil {
					e.mu.Unlock()
					return err
				}
				st.opened, st.text, st.version = true, string(b), 1
			}
			var tes []protocol.TextEdit
			for _, el := range x.Edits {
				te, ok := el.(*protocol.TextEdit)
				if !ok {
					e.mu.Unlock()
					return fmt.Errorf("unexpected edit element %T", el)
				}
				tes = append(tes, *te)
			}
			sort.SliceStable(tes, func(i, j int) bool { return posBefore(tes[j].Range.Start, tes[i].Range.Start) })
			for _, te := range tes { // last first: earlier positions stay valid
				r := text.Range{Start: text.Position(te.Range.Start), End: text.Position(te.Range.End)}
				st.changes = append(st.changes, text.Change{Range: &r, Text: te.NewText})
			}
			steps = append(steps, st)
		default:
			e.mu.Unlock()
			return fmt.Errorf("unexpected document change %T", dc)
		}
	}
	var notes []func() error
	for _, st := range steps {
		next, err := text.ApplyChanges(st.text, st.changes, e.enc)
		if err != nil {
			e.mu.Unlock()
			return err
		}
		d := &runDoc{version: st.version + 1, text: next}
		e.docs[st.u] = d
		st := st
		if st.opened {
			notes = append(notes, func() error { return e.c.DidOpen(context.Background(), st.u, "go", st.version, st.text) })
		}
		var events []protocol.TextDocumentContentChangeEvent
		for _, ch := range st.changes {
			r := *ch.Range
			events = append(events, lsptest.Partial(r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, ch.Text))
		}
		v := d.version
		notes = append(notes, func() error { return e.c.DidChange(context.Background(), st.u, v, events...) })
	}
	e.mu.Unlock()
	for _, n := range notes {
		if err := n(); err != nil {
			return err
		}
	}
	return nil
}

func posBefore(a, b protocol.Position) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Character < b.Character)
}
