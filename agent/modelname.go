package agent

import (
	"errors"
	"fmt"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/text"
)

// ErrBadModelName is what CheckModelName's error wraps, for faces to map
// to their own "bad request" (-32602, exit status 2).
var ErrBadModelName = errors.New("not a model name")

// CheckModelName refuses a model picked for a run (agentls.run's model,
// ACP's model option, `agentls run --model`) that could not be a model's
// name: control characters (which would act on a terminal or a log
// viewer when shown), surrounding spaces, over 256 bytes. The picked
// model is saved with the session and shown by every face, so the rule
// is one; Session.Prepare applies it too, so no face can skip it.
func CheckModelName(name string) error {
	if llm.ValidModelName(name) {
		return nil
	}
	return fmt.Errorf("%w: %q has control characters, surrounding spaces or more than 256 bytes (agentls/models and model.choices list the models)",
		ErrBadModelName, text.Clip(name, 80))
}
