package review

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
)

// Reasons for clients that cannot type one. A reject without a reason from
// a client that is not one of our plugins (those ask with an input box and
// pass the reason in the arguments) is answered at once, then followed by
// a window/showMessageRequest offering desk.ReasonChoices; the answer is
// the rejection's reason, told to the model like a typed one
// (desk.AskReason, which also holds why a dismissed question still
// rejects).
//
// The question comes after the command's answer, never inside it: eglot
// and Helix execute commands synchronously with a short timeout, and a
// person choosing would make it fail. A run still working applies the
// rejection at once; the session's next run is told about it, with the
// reason, once the user answered (bounded by desk.ReasonWait).

// reasonSinks are the wiring's functions for rejections whose reason is
// asked: queue passes them to the runs still working at once, record tells
// the sessions' next runs once the reason is known.
type reasonSinks struct{ queue, record func([]agent.Decision) }

// OnReason sets where rejections whose reason the user is asked go (see
// reasonSinks). Without it, no reason is asked. Call it before Serve.
func (v *Review) OnReason(queue, record func([]agent.Decision)) {
	v.st.reasons.Store(&reasonSinks{queue: queue, record: record})
}

// asksReason reports whether a reject without a reason is followed by the
// question: the client can show one and is not one of our plugins.
func (v *Review) asksReason() bool {
	f := v.core.Session().Features
	return f.ShowMessageActions && !f.Plugin && v.st.reasons.Load() != nil
}

// rejectAsking passes ds to the runs still working now, answers the
// command, and asks the user why on a goroutine of the server's.
func (v *Review) rejectAsking(ds []agent.Decision) {
	sinks := v.st.reasons.Load()
	sinks.queue(ds)
	v.core.Go("reason for a rejection", func(ctx context.Context) { v.askReason(ctx, sinks, ds) })
}

// askReason asks why ds were rejected and then records them, with the
// chosen reason if any. It runs on the server's context.
func (v *Review) askReason(ctx context.Context, sinks *reasonSinks, ds []agent.Decision) {
	note, err := desk.AskReason(ctx, ds, func(ctx context.Context, question string, choices []agent.Choice) (agent.Choice, error) {
		return v.core.Ask(ctx, protocol.MessageTypeInfo, question, choices)
	})
	if err != nil {
		v.log.Debug("no reason for the rejection", "err", err)
	}
	sinks.record(ds)
	// The editor's log says what the agent will be told: a user who
	// wonders can look, and it marks the end of the question.
	v.core.LogToEditor(ctx, protocol.MessageTypeInfo, note)
}
