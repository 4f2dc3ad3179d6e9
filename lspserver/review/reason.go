package review

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
)

// Reasons for clients that cannot type one. A reject without a reason from
// a client that is not one of our plugins (those ask with an input box and
// pass the reason in the arguments) is answered at once, then followed by
// a window/showMessageRequest offering a few common reasons; the answer is
// the rejection's reason, told to the model like a typed one.
//
// The question comes after the command's answer, never inside it: eglot
// and Helix execute commands synchronously with a short timeout, and a
// person choosing would make it fail. A run still working applies the
// rejection at once; the session's next run is told about it, with the
// reason, once the user answered (bounded by reasonWait).
//
// Rejecting is the user's explicit act: a dismissed question, no answer
// within the bound, or the server stopping still rejects, without a
// reason. That is not fail-open: a reject writes nothing.

// reasonNone is the first action so that a client whose default choice is
// the first one (eglot's completing-read on RET) tells the model nothing
// rather than a reason the user never chose.
const reasonNone = "No reason"

// rejectReasons are the choices offered, reasonNone first; as
// agent.Decide reads them, choosing one of the others gives a reason.
var rejectReasons = []agent.Choice{{ID: reasonNone}, {ID: "Wrong approach", Allow: true}, {ID: "Breaks behaviour", Allow: true},
	{ID: "Not what I asked", Allow: true}, {ID: "Style / conventions", Allow: true}}

// reasonWait bounds the wait for the user's choice; afterwards the
// rejection is passed on without a reason.
const reasonWait = 2 * time.Minute

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
	reason := v.chooseReason(ctx, ds)
	for i := range ds {
		ds[i].Reason = reason
	}
	sinks.record(ds)
	// The editor's log says what the agent will be told: a user who
	// wonders can look, and it marks the end of the question.
	msg := "agentls: rejection passed on without a reason"
	if reason != "" {
		msg = fmt.Sprintf("agentls: rejection passed on with the reason %q", reason)
	}
	v.core.LogToEditor(ctx, protocol.MessageTypeInfo, msg)
}

// chooseReason asks the user and returns the reason chosen, "" for none.
func (v *Review) chooseReason(ctx context.Context, ds []agent.Decision) string {
	ctx, cancel := context.WithTimeout(ctx, reasonWait)
	defer cancel()
	c, err := v.core.Ask(ctx, protocol.MessageTypeInfo,
		fmt.Sprintf("Agent: rejected the change to %s. Why reject? (the agent is told)", decidedFiles(ds)), rejectReasons)
	if err != nil {
		v.log.Debug("no reason for the rejection", "err", err)
	}
	if c.Allow {
		return c.ID
	}
	return ""
}

// decidedFiles names the files of ds for the question.
func decidedFiles(ds []agent.Decision) string {
	var names []string
	for _, d := range ds {
		if n := filepath.Base(d.Path); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}
