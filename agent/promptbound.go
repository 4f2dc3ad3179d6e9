package agent

import (
	"errors"
	"fmt"
)

// MaxPromptBytes bounds the task a face hands to a run. One bound for
// every face (LSP, ACP, CLI): a prompt is what a person asks, and more
// than this (about 48,000 tokens) would crowd the conversation, the tools
// and the answer out of the model's context window; it would be sent
// whole, on every turn, before anyone noticed. The agent reads files
// itself, so nothing legitimate needs more.
const MaxPromptBytes = 192_000

// ErrPromptTooLarge is what CheckPrompt's error wraps, for faces to map to
// their own "bad request" (-32602, exit status 2).
var ErrPromptTooLarge = errors.New("the prompt is too large")

// CheckPrompt refuses a prompt over MaxPromptBytes. Faces call it before
// anything else happens (no session, no model call), and Session.Prepare
// calls it again so no face can forget.
func CheckPrompt(prompt string) error {
	return CheckPromptSize(len(prompt))
}

// CheckPromptSize is CheckPrompt for a prompt of n bytes, for faces that
// assemble the prompt in pieces and want to stop early.
func CheckPromptSize(n int) error {
	if n > MaxPromptBytes {
		return fmt.Errorf("%w: %d bytes, over the limit of %d bytes; say what to do and let the agent read the files it needs", ErrPromptTooLarge, n, MaxPromptBytes)
	}
	return nil
}

// PromptLimit is the bound for a model whose context window is window
// tokens (0: DefaultContextWindow): MaxPromptBytes, or about half the
// window when that is less (three bytes a token, as the loop bounds tool
// output), so the conversation, the tools and the answer still fit; never
// under 16 KiB, which any usable model takes.
func PromptLimit(window int) int {
	return min(max(effectiveWindow(window)*3/2, 16<<10), MaxPromptBytes)
}

// CheckPromptFor is CheckPromptSize for n bytes sent to a model of that
// context window. Session.Prepare calls it with the run's model, so every
// face refuses the same prompts; a face that assembles the prompt in
// pieces (ACP attachments) calls it to stop early.
func CheckPromptFor(n, window int) error {
	if err := CheckPromptSize(n); err != nil {
		return err
	}
	if limit := PromptLimit(window); n > limit {
		return fmt.Errorf("%w: %d bytes, over the %d bytes this model's context window (model.contextWindow %d tokens) leaves room for; say what to do and let the agent read the files it needs",
			ErrPromptTooLarge, n, limit, effectiveWindow(window))
	}
	return nil
}

// effectiveWindow is window, or DefaultContextWindow when unset.
func effectiveWindow(window int) int {
	if window <= 0 {
		return DefaultContextWindow
	}
	return window
}
