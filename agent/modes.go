package agent

import (
	"slices"

	"github.com/agentls/agentls/agent/config"
)

// RunModes are the modes a front-end offers for a run, in the order it
// shows them: preview (each change is reviewed before it is written, the
// default), apply (changes are written as the agent makes them) and plan
// (read-only; the answer is a plan to approve). The configuration's mode
// setting takes the first two; plan is chosen per run.
var RunModes = []string{config.ModePreview, config.ModeApply, ModePlan}

// ValidRunMode reports whether m is one of RunModes, so a front-end
// refuses a mode no other front-end would run.
func ValidRunMode(m string) bool { return slices.Contains(RunModes, m) }

// SessionMode is a session's mode: the one chosen for it (by the client,
// for this connection), else the configuration's when it is a run mode,
// else preview, the mode that writes nothing unasked.
func SessionMode(chosen, configured string) string {
	switch {
	case chosen != "":
		return chosen
	case ValidRunMode(configured):
		return configured
	}
	return config.ModePreview
}

// RunRequestMode is RunRequest.Mode for a run in a face's mode: a plan
// runs read-only; preview and apply run alike and differ only in what the
// face does with the staged changes.
func RunRequestMode(mode string) string {
	if mode == ModePlan {
		return ModePlan
	}
	return ""
}
