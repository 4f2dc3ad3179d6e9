package agent

import (
	"errors"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent/config"
)

// Starting and ending a run, the steps every face (agentls.run,
// session/prompt, `agentls run`) takes in the same order and used to
// write out each on its own: check what the user typed (CheckAsk) before
// any configuration is read, settle the model the run will use and refuse
// a configuration without one (Session.RunConfig, which Prepare applies
// again), then Prepare, Execute, and at the end show the answer
// (Outcome.FinalAnswer) and log how it went (Outcome.LogAttrs).

// ErrNoPrompt is what CheckAsk's error wraps when the prompt is blank,
// for faces to map to their own "bad request" with their own words for
// the missing task.
var ErrNoPrompt = errors.New("the prompt is empty")

// CheckAsk trims the prompt and the model a user typed for a run and
// refuses what no configuration can make right: a blank prompt
// (ErrNoPrompt), one over MaxPromptBytes (ErrPromptTooLarge), a model
// that could not be one's name (ErrBadModelName). Faces call it first, so
// bad input costs no configuration read, session or model call; they tell
// which field is wrong with errors.Is, each in its own words.
func CheckAsk(prompt, model string) (string, string, error) {
	prompt, model = strings.TrimSpace(prompt), strings.TrimSpace(model)
	if prompt == "" {
		return "", "", ErrNoPrompt
	}
	if err := CheckPrompt(prompt); err != nil {
		return "", "", err
	}
	if model != "" {
		if err := CheckModelName(model); err != nil {
			return "", "", err
		}
	}
	return prompt, model, nil
}

// RunConfig is cfg as a run of the session asking for model will use
// it: the model asked for, else the one the session chose earlier, else
// the configured one (what Prepare builds the client from). Its error is
// cfg.ModelError for that configuration (wrapping config.ErrNoModel): the
// faces judged the configuration without the session's choice (ACP even
// without the model picked for the prompt) and so refused runs Prepare
// would have served; judging the configuration the run uses is the one
// rule. It does not record the choice: Prepare does, once the run is
// built.
func (s *Session) RunConfig(cfg config.Config, model string) (config.Config, error) {
	if model == "" {
		s.mu.Lock()
		model = s.st.Model
		s.mu.Unlock()
	}
	if model != "" {
		cfg.Model.Name = model
	}
	return cfg, cfg.ModelError()
}

// FinalAnswer is the answer a face shows at the end of the run: the
// model's final text of a finished run, "" when it failed, was cancelled
// or ended without words (a failed run's partial text is no answer).
func (o Outcome) FinalAnswer() string {
	if o.Status != StatusFinished || strings.TrimSpace(o.Answer) == "" {
		return ""
	}
	return o.Answer
}

// Reason is why the run failed, for people: its error, or "unknown
// error" when it carries none.
func (o Outcome) Reason() string {
	if o.Err == nil {
		return "unknown error"
	}
	return o.Err.Error()
}

// LogAttrs are the run's end for a log line (slog's key-value pairs), the
// same fields whichever face ran it, so logs of LSP, ACP and CLI runs are
// read and searched alike.
func (o Outcome) LogAttrs() []any {
	return []any{"run", o.RunID, "status", o.Status.String(), "turns", o.Turns, "toolCalls", o.ToolCalls, "tokens", o.Usage.TotalTokens}
}

// QueueDecisions passes each review decision to the session of its run
// (Session.Queue), which sessionOf finds; a run of no session is skipped.
// Review decides on hunks of many runs at once (a file's accept-all), so
// the faces hand over the whole batch.
func QueueDecisions(ds []Decision, sessionOf func(runID string) *Session) {
	for _, d := range ds {
		if sess := sessionOf(d.RunID); sess != nil {
			sess.Queue(d)
		}
	}
}

// RecordDecisions tells each decision's session about it (Session.Record)
// and returns the sessions it told, each once, in the order met: the face
// saves each of them once, however many of its files were decided.
func RecordDecisions(ds []Decision, sessionOf func(runID string) *Session) []*Session {
	var touched []*Session
	for _, d := range ds {
		sess := sessionOf(d.RunID)
		if sess == nil {
			continue
		}
		sess.Record(d)
		if !slices.Contains(touched, sess) {
			touched = append(touched, sess)
		}
	}
	return touched
}
