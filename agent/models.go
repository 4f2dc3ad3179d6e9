package agent

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
)

// Which models a run may pick is one rule on every face (agentls/models in
// the editor, ACP's model option): what the user set comes first (the
// session's choice, model.name, model.choices), then what the endpoint
// serves; names that could not be models are left out, never escaped,
// because the name is also what goes back to the endpoint.

// ModelChoices merges the model names a run may pick: first (what the
// user set, in order), then listed (what the endpoint serves). Surrounding
// spaces are trimmed; blanks, names llm.ValidModelName refuses and repeats
// are left out. limit > 0 keeps at most that many (a picker that is sent
// again with every change bounds it).
func ModelChoices(first, listed []string, limit int) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, names := range [][]string{first, listed} {
		for _, n := range names {
			n = strings.TrimSpace(n)
			if !llm.ValidModelName(n) || seen[n] {
				continue
			}
			if limit > 0 && len(out) == limit {
				return out
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// EndpointModels asks model endpoints which models they serve (GET
// /models), for pickers. The zero value asks every time (the editor's
// picker, opened on purpose); Remember keeps each endpoint's answer, its
// failure included, for the owner's lifetime (an ACP connection announces
// the list with every session and must not ask each time).
type EndpointModels struct {
	Remember bool

	mu    sync.Mutex
	known map[string]listing // by base URL
}

type listing struct {
	ids []string
	err error
}

// Errors of EndpointModels.List when the endpoint is not asked.
var (
	errModelsReplayed = errors.New("models: the model is replayed from a cassette (model.replay); there is no endpoint to ask")
	errModelsRecorded = errors.New("models: the model is being recorded (model.record); the endpoint is not asked, so its list stays out of the recording")
)

// List returns the models cfg's endpoint serves, sorted, unsafe names left
// out (llm.Client.ListModels). The endpoint is not asked when the
// configuration names no usable model, or the model is replayed or
// recorded; the error says why there is no list (the configured model
// and model.choices are still offered).
func (e *EndpointModels) List(ctx context.Context, cfg config.Config) ([]string, error) {
	switch {
	case cfg.ModelError() != nil:
		return nil, cfg.ModelError()
	case cfg.Model.Replay != "":
		return nil, errModelsReplayed
	case cfg.Model.Record != "":
		return nil, errModelsRecorded
	}
	key := cfg.Model.BaseURL
	if e.Remember {
		e.mu.Lock()
		l, ok := e.known[key]
		e.mu.Unlock()
		if ok {
			return l.ids, l.err
		}
	}
	client, err := llm.New(cfg.LLM())
	if err != nil {
		return nil, err
	}
	ids, err := client.ListModels(ctx)
	client.Close()
	if e.Remember && ctx.Err() == nil { // a cancelled ask is no answer
		e.mu.Lock()
		if e.known == nil {
			e.known = map[string]listing{}
		}
		e.known[key] = listing{ids, err}
		e.mu.Unlock()
	}
	return ids, err
}
