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
