package lsptest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
)

// Context returns a context for one test that ends with the test, with a
// generous deadline as a safety net against hangs (not a timing assertion).
func Context(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

// InitOptions shape the initialize request.
type InitOptions struct {
	// Folders are the workspace folders (absolute paths), sent as
	// workspaceFolders; the first is also rootUri.
	Folders []string
	// PositionEncodings is general.positionEncodings (nil: not sent, so
	// the server must use utf-16).
	PositionEncodings []string
	// Capabilities replaces DefaultCapabilities() when non-nil
	// (PositionEncodings is still applied).
	Capabilities *protocol.ClientCapabilities
	// InitializationOptions is sent as initializationOptions when non-nil.
	InitializationOptions any
	// ProcessID is sent as processId (nil: null).
	ProcessID *int32
	// ClientName is clientInfo.name (default "lsptest").
	ClientName string
	// SkipInitialized leaves out the initialized notification.
	SkipInitialized bool
}

// DefaultCapabilities is a capable editor: workspace edits with document
// changes, resource operations and change annotations, work-done progress,
// message actions, code lens refresh and workspace folders. Dynamic
// registration of watched files is off (tests opt in).
func DefaultCapabilities() protocol.ClientCapabilities {
	t := true
	return protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit: &t,
			WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{
				DocumentChanges: &t,
				ResourceOperations: []protocol.ResourceOperationKind{
					protocol.ResourceOperationKindCreate, protocol.ResourceOperationKindRename, protocol.ResourceOperationKindDelete,
				},
				ChangeAnnotationSupport: &protocol.ChangeAnnotationsSupportOptions{GroupsOnLabel: &t},
			},
			WorkspaceFolders: &t,
			CodeLens:         &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &t},
			ExecuteCommand:   &protocol.ExecuteCommandClientCapabilities{},
		},
		Window: &protocol.WindowClientCapabilities{
			WorkDoneProgress: &t,
			ShowMessage:      &protocol.ShowMessageRequestClientCapabilities{MessageActionItem: &protocol.ClientShowMessageActionItemOptions{}},
		},
	}
}

// ResolvingCapabilities is DefaultCapabilities plus code actions resolved
// lazily: textDocument.codeAction with dataSupport and resolveSupport for
// "edit" and "command" (as gopls's clients send; agentls then lists titles
// and kinds, and answers commands on codeAction/resolve).
func ResolvingCapabilities() protocol.ClientCapabilities {
	c := DefaultCapabilities()
	t := true
	c.TextDocument = &protocol.TextDocumentClientCapabilities{CodeAction: &protocol.CodeActionClientCapabilities{
		DataSupport:    &t,
		ResolveSupport: protocol.ClientCodeActionResolveOptions{Properties: []string{"edit", "command"}},
	}}
	return c
}

// Initialize sends initialize (and then initialized unless skipped) and
// returns the server's answer.
func (c *Client) Initialize(ctx context.Context, o InitOptions) (*protocol.InitializeResult, error) {
	caps := DefaultCapabilities()
	if o.Capabilities != nil {
		caps = *o.Capabilities
	}
	if o.PositionEncodings != nil {
		if caps.General == nil {
			caps.General = &protocol.GeneralClientCapabilities{}
		}
		caps.General.PositionEncodings = nil
		for _, e := range o.PositionEncodings {
			caps.General.PositionEncodings = append(caps.General.PositionEncodings, protocol.PositionEncodingKind(e))
		}
	}
	name := o.ClientName
	if name == "" {
		name = "lsptest"
	}
	p := &protocol.InitializeParams{
		ProcessID:    o.ProcessID,
		ClientInfo:   protocol.ClientInfo{Name: name},
		Capabilities: caps,
	}
	if len(o.Folders) > 0 {
		var wf []protocol.WorkspaceFolder
		for _, f := range o.Folders {
			wf = append(wf, protocol.WorkspaceFolder{URI: uri.File(f), Name: f})
		}
		p.WorkspaceFolders = protocol.NewNullable(wf)
		root := uri.File(o.Folders[0])
		//lint:ignore SA1019 sent too, as editors do, for servers that only read rootUri
		p.RootURI = &root
	}
	if o.InitializationOptions != nil {
		b, err := marshal(o.InitializationOptions)
		if err != nil {
			return nil, err
		}
		p.InitializationOptions = b
	}
	var res protocol.InitializeResult
	if err := c.Call(ctx, protocol.MethodInitialize, p, &res); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if !o.SkipInitialized {
		if err := c.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
			return nil, fmt.Errorf("initialized: %w", err)
		}
	}
	return &res, nil
}

// Shutdown sends shutdown.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.Call(ctx, protocol.MethodShutdown, nil, nil)
}

// Exit sends exit.
func (c *Client) Exit(ctx context.Context) error {
	return c.Notify(ctx, protocol.MethodExit, nil)
}

// DidOpen opens a document.
func (c *Client) DidOpen(ctx context.Context, u uri.URI, languageID string, version int32, text string) error {
	return c.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageKind(languageID), Version: version, Text: text},
	})
}

// DidChange sends content changes (build them with Partial and Whole).
func (c *Client) DidChange(ctx context.Context, u uri.URI, version int32, changes ...protocol.TextDocumentContentChangeEvent) error {
	return c.Notify(ctx, protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: changes,
	})
}

// DidSave reports a save.
func (c *Client) DidSave(ctx context.Context, u uri.URI) error {
	return c.Notify(ctx, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
	})
}

// DidClose closes a document.
func (c *Client) DidClose(ctx context.Context, u uri.URI) error {
	return c.Notify(ctx, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
	})
}

// Document asks agentls/document for the server's view of u.
func (c *Client) Document(ctx context.Context, u uri.URI) (*lspserver.DocumentResult, error) {
	var r lspserver.DocumentResult
	if err := c.Call(ctx, lspserver.MethodDocument, &lspserver.DocumentParams{URI: u}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Partial is an incremental change replacing the range (sl,sc)-(el,ec),
// characters in the session's encoding.
func Partial(sl, sc, el, ec uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{
		Range: protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}},
		Text:  text,
	}
}

// Whole is a change replacing the whole document.
func Whole(text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangeWholeDocument{Text: text}
}
