package desk

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
)

// Asking why, after a reject. A client that cannot type a reason with
// its reject is asked afterwards, with a few common reasons to choose
// from; the answer is told to the model like a typed reason. Rejecting
// is the user's explicit act: a dismissed question, no answer within
// ReasonWait, or the server stopping still rejects, without a reason.
// That is not fail-open: a reject writes nothing.

// NoReason is the first choice so that a client whose default choice is
// the first one (eglot's completing-read on RET) tells the model nothing
// rather than a reason the user never chose.
const NoReason = "No reason"

// ReasonChoices are the choices offered, NoReason first; as agent.Decide
// reads them, choosing one of the others gives a reason.
var ReasonChoices = []agent.Choice{{ID: NoReason}, {ID: "Wrong approach", Allow: true}, {ID: "Breaks behaviour", Allow: true},
	{ID: "Not what I asked", Allow: true}, {ID: "Style / conventions", Allow: true}}

// ReasonWait bounds the wait for the user's choice; afterwards the
// rejection is passed on without a reason.
const ReasonWait = 2 * time.Minute

// Asker puts question to the user with choices and returns the one
// chosen (a zero Choice when none was).
type Asker func(ctx context.Context, question string, choices []agent.Choice) (agent.Choice, error)

// AskReason asks why ds were rejected (bounded by ReasonWait) and sets
// the reason chosen on each of them, "" when none was. The error says
// why there is no answer, for the log only: ds are rejected regardless.
// It returns the line telling the user what the model will be told.
func AskReason(ctx context.Context, ds []agent.Decision, ask Asker) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ReasonWait)
	defer cancel()
	c, err := ask(ctx, fmt.Sprintf("Agent: rejected the change to %s. Why reject? (the agent is told)", decidedFiles(ds)), ReasonChoices)
	reason := ""
	if c.Allow {
		reason = c.ID
	}
	for i := range ds {
		ds[i].Reason = reason
	}
	if reason == "" {
		return "agentls: rejection passed on without a reason", err
	}
	return fmt.Sprintf("agentls: rejection passed on with the reason %q", reason), err
}

// decidedFiles names the files of ds, each once, for the question.
func decidedFiles(ds []agent.Decision) string {
	var names []string
	for _, d := range ds {
		if n := filepath.Base(d.Path); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}
