package lang

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// handle answers what the server sends us. It runs inline on the read
// goroutine (wire order) and returns at once. Every request gets an
// answer: servers wait on them (tsls publishes nothing when
// workDoneProgress/create fails; gopls never type-checks a module when
// workspace/configuration fails). A notification never returns an error,
// which would kill the connection.
func (c *client) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	params := req.Params() // borrowed: decoded before returning, never kept
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		c.onPublish(params)
		return nil, nil
	case protocol.MethodWorkspaceConfiguration:
		return c.configuration(params), nil
	case protocol.MethodClientRegisterCapability:
		c.register(params)
		return nil, nil
	case protocol.MethodClientUnregisterCapability:
		c.unregister(params)
		return nil, nil
	case protocol.MethodWorkspaceWorkspaceFolders:
		return []protocol.WorkspaceFolder{{URI: uri.File(c.root), Name: filepath.Base(c.root)}}, nil
	case protocol.MethodWorkspaceApplyEdit:
		// Edits reach the user only as reviewed proposals.
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: ptr("agentls does not apply edits a language server asks for")}, nil
	case protocol.MethodWindowShowDocument:
		return &protocol.ShowDocumentResult{Success: false}, nil
	case protocol.MethodWindowShowMessage:
		c.onShowMessage(params)
		return nil, nil
	case protocol.MethodWindowShowMessageRequest:
		c.onShowMessage(params) // its message too; no action is chosen
		return nil, nil
	case protocol.MethodWindowWorkDoneProgressCreate:
		return nil, nil
	}
	if !req.IsCall() {
		return nil, nil // logMessage, $/progress, telemetry, anything else
	}
	if strings.HasSuffix(req.Method(), "/refresh") { // diagnostics, semantic tokens, inlay hints, code lenses…
		return nil, nil
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "agentls does not handle "+strings.Clone(req.Method()))
}

// goplsDefaults are settings agentls needs from gopls: diagnostics in one
// wave (by default analyzer findings follow a second later, as a second
// publication of the same version) and workspace symbols from the
// workspace only (by default 28 of 31 hits were in the standard library
// and dependencies). The user's initializationOptions win.
var goplsDefaults = map[string]any{"diagnosticsDelay": "0s", "symbolScope": "workspace"}

// configuration answers workspace/configuration: gopls gets its settings
// (goplsDefaults under the user's initializationOptions); for any other
// section, the object of that name in initializationOptions, else null.
func (c *client) configuration(raw jsonrpc2.RawMessage) jsonrpc2.RawMessage {
	var p protocol.ConfigurationParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		return jsonrpc2.RawMessage("[]")
	}
	var opts map[string]any
	_ = json.Unmarshal(c.cfg.InitializationOptions, &opts)
	out := make([]any, len(p.Items))
	for i, it := range p.Items {
		section := ""
		if it.Section != nil {
			section = *it.Section
		}
		switch {
		case section == "gopls" && c.cfg.Name == "gopls":
			m := map[string]any{}
			for k, v := range goplsDefaults {
				m[k] = v
			}
			for k, v := range opts {
				m[k] = v
			}
			out[i] = m
		case section != "" && opts != nil:
			out[i] = opts[section] // nil when absent
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return jsonrpc2.RawMessage("[]")
	}
	return b
}

// register records dynamic registrations by id; pull diagnostics may be
// registered at any time (pyright does so only after initialize, and
// unregisters and registers again under a new id).
func (c *client) register(raw jsonrpc2.RawMessage) {
	var p protocol.RegistrationParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range p.Registrations {
		if len(c.regs) < 1000 {
			c.regs[r.ID] = r.Method
		}
		if r.Method == protocol.MethodTextDocumentDiagnostic && !c.pullSeen {
			c.pullSeen = true
			close(c.changed) // wake waiters for publications: pull now
			c.changed = make(chan struct{})
		}
	}
}

func (c *client) unregister(raw jsonrpc2.RawMessage) {
	var p protocol.UnregistrationParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range p.Unregisterations {
		delete(c.regs, r.ID)
	}
}

// pull reports whether diagnostics are pulled from this server (LSP pull
// diagnostics, or tsserver's own requests through tsls). Once a server has
// offered pull it is pulled from for good: pyright stops pushing once the
// client advertises pull, even between its unregistration and the next
// registration.
func (c *client) pull() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pullSeen || c.tsPull
}

// onShowMessage keeps the server's latest error message (window/showMessage
// of type Error): a server that cannot work in this environment (gopls
// without the go command, a project it cannot load) often still answers,
// with no diagnostics, and only says so this way. Runs pass it on once
// (Run.serverNote), so "no new problems" is never the whole story.
func (c *client) onShowMessage(raw jsonrpc2.RawMessage) {
	var p protocol.ShowMessageParams
	if err := protocol.Unmarshal(raw, &p); err != nil || p.Type != protocol.MessageTypeError {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errSeq++
	c.errMsg = oneLine(p.Message)
}

// serverError returns the server's latest error message and its number
// (0: none).
func (c *client) serverError() (string, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errMsg, c.errSeq
}
