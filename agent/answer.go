package agent

// Questions that act on the user's behalf (a tool's approval, a change's
// permission, workspace trust, a plan's approval) are asked by each face
// in its own protocol (LSP window/showMessageRequest, ACP
// session/request_permission, the CLI's terminal), and answered by this
// one rule: only an answer that names one of the offered choices counts;
// a missing, unknown, malformed, failed or cancelled answer is the deny.

// Choice is one answer a face offers.
type Choice struct {
	// ID is what the face's client answers with (an LSP action title, an
	// ACP optionId, a terminal word).
	ID string
	// Allow: choosing it says yes.
	Allow bool
	// Always: the yes holds for the rest of the session or connection
	// (never wider than the face says).
	Always bool
}

// Deny is the answer to anything that is not a clear yes.
var Deny = Choice{}

// Decide maps a face's answer to one of offered: the offered choice whose
// ID is answer, or Deny when err is set or answer names none of them.
func Decide(offered []Choice, answer string, err error) Choice {
	if err != nil || answer == "" {
		return Deny
	}
	for _, c := range offered {
		if c.ID == answer {
			return c
		}
	}
	return Deny
}
