package acpserver

import (
	"context"
	"slices"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
)

// Modes and config options. A session's mode is agentls's run mode:
// preview (each change is asked about before it is written: the default),
// apply (changes are written as the agent makes them; the tool calls still
// show every diff) or plan (read-only tools and todo_write: the answer is
// a plan). It is offered both as ACP session modes (session/set_mode) and
// as the "mode" config option; the model is the "model" config option.
// Both start from the configuration (mode, model.name) and, once set by
// the client, hold for the session on this connection.

// Session modes.
const (
	modePreview = config.ModePreview
	modeApply   = config.ModeApply
	modePlan    = agent.ModePlan
)

// Config option ids.
const (
	optionMode  = "mode"
	optionModel = "model"
)

// modes names and describes agent.RunModes for the client's menu.
var modes = []struct{ id, name, desc string }{
	{modePreview, "Preview", "Each change is shown as a diff and written only after you allow it"},
	{modeApply, "Apply", "Changes are written as the agent makes them (each diff is still shown)"},
	{modePlan, "Plan", "Read-only: the agent explores and answers with a plan for you to approve"},
}

// noteConfig records what the session's configuration says now.
func (ss *session) noteConfig(cfg config.Config) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.cfgMode, ss.cfgModel, ss.choices = cfg.Mode, cfg.Model.Name, slices.Clone(cfg.Model.Choices)
}

// maxModelOptions bounds the model option's values.
const maxModelOptions = 200

// discoverModels asks the endpoint which models it serves (once per
// endpoint and connection: agent.EndpointModels) and, when it lists some,
// sends the session's config options again with them.
func (s *Server) discoverModels(ctx context.Context, ss *session) {
	cfg, _, _ := s.loadConfig([]string{ss.cwd})
	ids, err := s.models.List(ctx, cfg)
	if err != nil {
		s.log.Debug("the endpoint lists no models", "err", err)
	}
	if len(ids) == 0 {
		return
	}
	ss.mu.Lock()
	ss.discovered = ids
	ss.mu.Unlock()
	ss.update(ctx, acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: ss.options()}})
}

// effectiveMode is the session's mode (under ss.mu): agent.SessionMode.
func (ss *session) effectiveMode() string { return agent.SessionMode(ss.mode, ss.cfgMode) }

// effectiveModel is the session's model name, "" when none (under ss.mu):
// the one chosen here, else the one the session chose before (saved with
// it, whichever front-end chose it), else model.name.
func (ss *session) effectiveModel() string {
	if ss.model != "" {
		return ss.model
	}
	if ss.core != nil {
		if m := ss.core.Info().Model; m != "" {
			return m
		}
	}
	return ss.cfgModel
}

// modeState is the session's modes for session/new, load and resume.
func (ss *session) modeState(cfg config.Config) *acp.SessionModeState {
	ss.noteConfig(cfg)
	ss.mu.Lock()
	cur := ss.effectiveMode()
	ss.mu.Unlock()
	st := &acp.SessionModeState{CurrentModeId: acp.SessionModeId(cur)}
	for _, m := range modes {
		desc := m.desc
		st.AvailableModes = append(st.AvailableModes, acp.SessionMode{Id: acp.SessionModeId(m.id), Name: m.name, Description: &desc})
	}
	return st
}

// configOptions is the session's config options (mode, and the model
// when one is configured).
func (ss *session) configOptions(cfg config.Config) []acp.SessionConfigOption {
	ss.noteConfig(cfg)
	return ss.options()
}

func (ss *session) options() []acp.SessionConfigOption {
	ss.mu.Lock()
	mode, model := ss.effectiveMode(), ss.effectiveModel()
	first, listed := append([]string{model, ss.cfgModel}, ss.choices...), ss.discovered
	ss.mu.Unlock()
	var mopts acp.SessionConfigSelectOptionsUngrouped
	for _, m := range modes {
		desc := m.desc
		mopts = append(mopts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m.id), Name: m.name, Description: &desc})
	}
	modeOpt := acp.NewSessionConfigOptionSelect(acp.SessionConfigValueId(mode), acp.SessionConfigSelectOptions{Ungrouped: &mopts})
	modeOpt.Select.Id, modeOpt.Select.Name = optionMode, "Mode"
	modeOpt.Select.Category = acp.Ptr(acp.SessionConfigOptionCategoryMode)
	out := []acp.SessionConfigOption{modeOpt}
	if model == "" {
		return out
	}
	var opts acp.SessionConfigSelectOptionsUngrouped
	for _, n := range agent.ModelChoices(first, listed, maxModelOptions) {
		opts = append(opts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(n), Name: n})
	}
	modelOpt := acp.NewSessionConfigOptionSelect(acp.SessionConfigValueId(model), acp.SessionConfigSelectOptions{Ungrouped: &opts})
	desc := "The model agentls calls: model.name, model.choices and what the endpoint lists; the session keeps the choice"
	modelOpt.Select.Id, modelOpt.Select.Name, modelOpt.Select.Description = optionModel, "Model", &desc
	modelOpt.Select.Category = acp.Ptr(acp.SessionConfigOptionCategoryModel)
	return append(out, modelOpt)
}

// SetSessionMode answers session/set_mode.
func (s *Server) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	defer leave()
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	if err := ss.setMode(string(p.ModeId)); err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	ss.update(ctx, acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: ss.options()}})
	return acp.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption answers session/set_config_option.
func (s *Server) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	defer leave()
	if p.ValueId == nil {
		return acp.SetSessionConfigOptionResponse{}, invalidParams("agentls's config options (mode, model) take a value id, not a boolean")
	}
	ss, err := s.session(p.ValueId.SessionId)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	v := string(p.ValueId.Value)
	switch string(p.ValueId.ConfigId) {
	case optionMode:
		if err := ss.setMode(v); err != nil {
			return acp.SetSessionConfigOptionResponse{}, err
		}
		ss.update(ctx, acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: acp.SessionModeId(v)}})
	case optionModel:
		if err := agent.CheckModelName(v); err != nil {
			return acp.SetSessionConfigOptionResponse{}, invalidParams("model: %v", err)
		}
		ss.mu.Lock()
		ss.model = v
		ss.mu.Unlock()
	default:
		return acp.SetSessionConfigOptionResponse{}, invalidParams("unknown config option %q; agentls has %q and %q", p.ValueId.ConfigId, optionMode, optionModel)
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: ss.options()}, nil
}

// setMode makes m the session's mode on this connection.
func (ss *session) setMode(m string) error {
	if !agent.ValidRunMode(m) {
		return invalidParams("mode %q: agentls offers preview, apply and plan", m)
	}
	ss.mu.Lock()
	ss.mode = m
	ss.mu.Unlock()
	return nil
}
