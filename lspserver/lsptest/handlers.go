package lsptest

import (
	"encoding/json"
	"sync"

	"go.lsp.dev/protocol"
)

// defaultHandlers answers the server→client requests agentls makes the way
// a plain editor would, so tests only script what they assert on:
//   - client/registerCapability, client/unregisterCapability,
//     window/workDoneProgress/create, workspace/codeLens/refresh: null (ok);
//   - window/showMessageRequest: null (the user dismissed it);
//   - workspace/applyEdit: applied=false with a reason, so a test that
//     expects an edit must say how the editor answers (ApplyEditResult);
//   - workspace/configuration: null for each item.
//
// Anything else gets MethodNotFound.
func defaultHandlers() map[string]Handler {
	ok := func(Message) (any, *Error) { return nil, nil }
	return map[string]Handler{
		protocol.MethodClientRegisterCapability:     ok,
		protocol.MethodClientUnregisterCapability:   ok,
		protocol.MethodWindowWorkDoneProgressCreate: ok,
		protocol.MethodWorkspaceCodeLensRefresh:     ok,
		protocol.MethodWindowShowMessageRequest:     ok,
		protocol.MethodWorkspaceApplyEdit:           ApplyEditResult(false, "lsptest: no workspace/applyEdit handler set"),
		protocol.MethodWorkspaceConfiguration: func(m Message) (any, *Error) {
			var p struct {
				Items []json.RawMessage `json:"items"`
			}
			_ = json.Unmarshal(m.Params, &p)
			return make([]any, len(p.Items)), nil
		},
	}
}

// Result returns a Handler that always answers result.
func Result(result any) Handler {
	return func(Message) (any, *Error) { return result, nil }
}

// Results returns a Handler that answers the given results in turn, then
// repeats the last one.
func Results(results ...any) Handler {
	var mu sync.Mutex
	var i int
	return func(Message) (any, *Error) {
		mu.Lock()
		defer mu.Unlock()
		r := results[min(i, len(results)-1)]
		i++
		return r, nil
	}
}

// ApplyEditResult returns a workspace/applyEdit handler that answers
// applied, with failureReason when not applied.
func ApplyEditResult(applied bool, failureReason string) Handler {
	return func(Message) (any, *Error) {
		r := &protocol.ApplyWorkspaceEditResult{Applied: applied}
		if !applied && failureReason != "" {
			r.FailureReason = &failureReason
		}
		return r, nil
	}
}

// ChooseAction returns a window/showMessageRequest handler that picks the
// action titled title (null if the request offers none with that title).
func ChooseAction(title string) Handler {
	return func(m Message) (any, *Error) {
		var p protocol.ShowMessageRequestParams
		if err := m.DecodeParams(&p); err != nil {
			return nil, &Error{Code: CodeInvalidParams, Message: err.Error()}
		}
		for _, a := range p.Actions {
			if a.Title == title {
				return &protocol.MessageActionItem{Title: title}, nil
			}
		}
		return nil, nil
	}
}
