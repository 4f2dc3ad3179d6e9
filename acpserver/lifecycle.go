package acpserver

import (
	"context"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// authMethodID names the one auth method: "configure a model". agentls has
// no account to log in to; what a client must get the user to do before
// the first prompt is set the model configuration, and the method's
// description says exactly what to set.
const authMethodID = "agentls-model-config"

// Initialize answers initialize: protocol version 1 (the only one; the SDK
// does not negotiate), what agentls can do, and the auth method. No model
// configuration is needed to answer: a missing one is reported on the
// first prompt (and described by authMethods).
func (s *Server) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.InitializeResponse{}, err
	}
	defer leave()
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	name := ""
	if p.ClientInfo != nil {
		name = p.ClientInfo.Name + " " + p.ClientInfo.Version
	}
	s.log.Info("initialize", "client", name, "protocolVersion", p.ProtocolVersion,
		"fsRead", p.ClientCapabilities.Fs.ReadTextFile, "fsWrite", p.ClientCapabilities.Fs.WriteTextFile)
	title := "agentls"
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: "agentls", Title: &title, Version: s.opts.Version},
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:    acp.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: acp.SessionCapabilities{
				List:   &acp.SessionListCapabilities{},
				Resume: &acp.SessionResumeCapabilities{},
				Close:  &acp.SessionCloseCapabilities{},
			},
		},
		AuthMethods: s.authMethods(),
	}, nil
}

// authMethods describes what to set when the user's configuration names
// no model (workspace files can still name one; the first prompt says).
func (s *Server) authMethods() []acp.AuthMethod {
	cfg, _, _ := s.loadConfig(nil)
	err := cfg.ModelError()
	if err == nil {
		return []acp.AuthMethod{}
	}
	desc := "agentls needs a model endpoint: " + err.Error() +
		". Then choose this method (or send a prompt) to check again."
	return []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{
		Id: authMethodID, Name: "Configure agentls's model", Description: &desc,
	}}}
}

// Authenticate re-reads the configuration: it succeeds once a model is
// configured and otherwise fails naming what is still missing.
func (s *Server) Authenticate(_ context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.AuthenticateResponse{}, err
	}
	defer leave()
	if p.MethodId != authMethodID {
		return acp.AuthenticateResponse{}, invalidParams("unknown auth method %q; agentls offers %q", p.MethodId, authMethodID)
	}
	cfg, _, _ := s.loadConfig(nil)
	if err := cfg.ModelError(); err != nil {
		return acp.AuthenticateResponse{}, authRequired(err)
	}
	return acp.AuthenticateResponse{}, nil
}

// authRequired is ACP's auth_required error (-32000), which clients answer
// by offering the auth methods, carrying what to set.
func authRequired(err error) error {
	return &acp.RequestError{Code: -32000, Message: fmt.Sprintf("Authentication required: agentls has no usable model configuration: %v", err),
		Data: map[string]any{"authMethods": []string{authMethodID}}}
}
