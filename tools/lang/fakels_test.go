package lang

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/lspcodec"
	"github.com/agentls/agentls/internal/text"
)

// The fake language server: the test binary itself, started with
// AGENTLS_FAKE_LS set to a mode (see TestMain). It is small on purpose and
// misbehaves on request:
//
//	ok        answers initialize (positionEncoding from FAKE_ENC; "offset:utf-8"
//	          picks from clangd's offsetEncoding extension instead), publishes an
//	          error "undefined: undefinedThing" for every occurrence of that
//	          word, with the document's version; definition finds "func NAME"
//	          for the identifier at the position (in the negotiated encoding)
//	pull      as ok, but offers pull diagnostics and never publishes
//	crash     writes to stderr and exits 3 before reading anything
//	crashlate answers initialize, then exits at the first didChange
//	hang      reads but never answers
//	silent    answers initialize, never publishes
//	flood     publishes 10,000 errors on every change
//	garbage   answers initialize with bytes that are not JSON-RPC
//	complain  as ok, but says after initialized (window/showMessage, Error)
//	          that it cannot work
const fakeEnv = "AGENTLS_FAKE_LS"

// fakeToken marks fake server processes (in their environment) so tests
// can tell that none outlived them.
const fakeToken = "AGENTLS_FAKE_LS_TOKEN"

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

// runFakeServer serves one fake language server on stdio until exit.
func runFakeServer(mode string) {
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "fake: cannot load the workspace")
		os.Exit(3)
	case "garbage":
		buf := make([]byte, 4096)
		_, _ = os.Stdin.Read(buf)
		_, _ = io.WriteString(os.Stdout, "Content-Length: 20\r\n\r\n{\"this is\": not json")
		time.Sleep(time.Hour)
	}
	f := &fakeServer{mode: mode, docs: map[uri.URI]*fakeDoc{}, enc: text.UTF16, exit: make(chan struct{})}
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(stdio{}), jsonrpc2.WithCodec(lspcodec.Codec{}))
	f.conn = conn
	conn.Go(context.Background(), f.handle)
	select {
	case <-f.exit:
	case <-conn.Done():
	}
	os.Exit(0)
}

type fakeServer struct {
	mode string
	conn jsonrpc2.Conn
	enc  text.Encoding
	mu   sync.Mutex
	docs map[uri.URI]*fakeDoc
	exit chan struct{}
}

type fakeDoc struct {
	text    string
	version int32
}

func (f *fakeServer) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if f.mode == "hang" {
		select {} // blocks the reader: nothing is ever answered
	}
	params := req.Params()
	switch req.Method() {
	case "initialize":
		var p protocol.InitializeParams
		_ = protocol.Unmarshal(params, &p)
		want := os.Getenv("FAKE_ENC")
		enc := protocol.PositionEncodingKindUTF16
		if p.Capabilities.General != nil {
			for _, e := range p.Capabilities.General.PositionEncodings {
				if string(e) == want {
					enc = e
				}
			}
		}
		// clangd before 16: only its offsetEncoding extension.
		offset, clangdStyle := strings.CutPrefix(want, "offset:")
		if clangdStyle {
			enc = protocol.PositionEncodingKindUTF16
			var ext struct {
				Capabilities struct {
					OffsetEncoding []string `json:"offsetEncoding"`
				} `json:"capabilities"`
			}
			_ = json.Unmarshal(params, &ext)
			if slices.Contains(ext.Capabilities.OffsetEncoding, offset) {
				enc = protocol.PositionEncodingKind(offset)
			}
		}
		f.enc, _ = text.ParseEncoding(string(enc))
		caps := map[string]any{
			"textDocumentSync": 1, "definitionProvider": true, "referencesProvider": true, "renameProvider": true,
			"documentSymbolProvider": true, "workspaceSymbolProvider": true,
		}
		if want != "" && !clangdStyle {
			caps["positionEncoding"] = string(enc)
		}
		if f.mode == "pull" {
			caps["diagnosticProvider"] = map[string]any{"interFileDependencies": false, "workspaceDiagnostics": false}
		}
		result := map[string]any{"capabilities": caps, "serverInfo": map[string]any{"name": "fake", "version": "1"}}
		if clangdStyle {
			result["offsetEncoding"] = string(enc)
		}
		b, _ := json.Marshal(result)
		return jsonrpc2.RawMessage(b), nil
	case "initialized":
		if f.mode == "complain" {
			_ = f.conn.Notify(ctx, "window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "fake: cannot find the toolchain\nsecond line"})
		}
		return nil, nil
	case "shutdown":
		return nil, nil
	case "exit":
		close(f.exit)
		return nil, nil
	case "textDocument/didOpen":
		var p protocol.DidOpenTextDocumentParams
		_ = protocol.Unmarshal(params, &p)
		f.set(ctx, p.TextDocument.URI, p.TextDocument.Text, p.TextDocument.Version)
	case "textDocument/didChange":
		if f.mode == "crashlate" {
			fmt.Fprintln(os.Stderr, "fake: crashed on a change")
			os.Exit(4)
		}
		var p protocol.DidChangeTextDocumentParams
		_ = protocol.Unmarshal(params, &p)
		for _, c := range p.ContentChanges {
			if w, ok := c.(*protocol.TextDocumentContentChangeWholeDocument); ok {
				f.set(ctx, p.TextDocument.URI, w.Text, p.TextDocument.Version)
			}
		}
	case "textDocument/diagnostic":
		var p protocol.DocumentDiagnosticParams
		_ = protocol.Unmarshal(params, &p)
		f.mu.Lock()
		d := f.docs[p.TextDocument.URI]
		f.mu.Unlock()
		var items []protocol.Diagnostic
		if d != nil {
			items = f.diagnose(d.text)
		}
		return &protocol.RelatedFullDocumentDiagnosticReport{FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{Kind: "full", Items: items}}, nil
	case "textDocument/definition":
		var p protocol.DefinitionParams
		_ = protocol.Unmarshal(params, &p)
		return f.definition(p.TextDocument.URI, p.Position), nil
	}
	if req.IsCall() {
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, req.Method())
	}
	return nil, nil
}

// set stores a document and publishes its diagnostics.
func (f *fakeServer) set(ctx context.Context, u uri.URI, content string, v int32) {
	f.mu.Lock()
	f.docs[u] = &fakeDoc{content, v}
	f.mu.Unlock()
	switch f.mode {
	case "silent", "pull":
		return
	case "flood":
		items := make([]protocol.Diagnostic, 10000)
		for i := range items {
			items[i] = protocol.Diagnostic{Range: protocol.Range{Start: protocol.Position{Line: 0}}, Severity: protocol.DiagnosticSeverityError, Message: protocol.String(fmt.Sprintf("flood %d", i))}
		}
		_ = f.conn.Notify(ctx, "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(v), Diagnostics: items})
		return
	}
	_ = f.conn.Notify(ctx, "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(v), Diagnostics: f.diagnose(content)})
}

// diagnose reports every whole word undefinedThing, with its range in the
// negotiated encoding.
func (f *fakeServer) diagnose(content string) []protocol.Diagnostic {
	items := []protocol.Diagnostic{}
	ix := text.NewIndex(content)
	for off := 0; ; {
		i := strings.Index(content[off:], "undefinedThing")
		if i < 0 {
			break
		}
		s := off + i
		e := s + len("undefinedThing")
		ps, pe := ix.Position(s, f.enc), ix.Position(e, f.enc)
		items = append(items, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: ps.Line, Character: ps.Character}, End: protocol.Position{Line: pe.Line, Character: pe.Character}},
			Severity: protocol.DiagnosticSeverityError, Source: protocol.NewOptional("fake"),
			Message: protocol.String("undefined: undefinedThing"),
		})
		off = e
	}
	return items
}

// definition finds the identifier at pos (in the negotiated encoding) and
// the line "func NAME" in any document.
func (f *fakeServer) definition(u uri.URI, pos protocol.Position) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.docs[u]
	if d == nil {
		return nil
	}
	ix := text.NewIndex(d.text)
	off := ix.Offset(text.Position{Line: pos.Line, Character: pos.Character}, f.enc)
	s, e := off, off
	for s > 0 && isIdent(rune(d.text[s-1])) {
		s--
	}
	for e < len(d.text) && isIdent(rune(d.text[e])) {
		e++
	}
	if s == e {
		return nil
	}
	word := d.text[s:e]
	for du, doc := range f.docs {
		i := strings.Index(doc.text, "func "+word+"(")
		if i < 0 {
			continue
		}
		dix := text.NewIndex(doc.text)
		ps := dix.Position(i+5, f.enc)
		pe := dix.Position(i+5+len(word), f.enc)
		return []protocol.Location{{URI: du, Range: protocol.Range{Start: protocol.Position{Line: ps.Line, Character: ps.Character}, End: protocol.Position{Line: pe.Line, Character: pe.Character}}}}
	}
	return []protocol.Location{}
}
