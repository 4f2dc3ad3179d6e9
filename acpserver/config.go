package acpserver

import (
	"context"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/safetext"
)

// Configuration over ACP is the same schema and sources as for the LSP
// server and the CLI (agent/config), minus the editor-settings layer: ACP
// clients configure agents with the process environment and files. The
// folders are the session's cwd. Workspace trust (agent/config trust.go)
// works as in the editor: keys of an untrusted .agentls/config.json that
// act on the user's behalf are withheld, and the user is asked once per
// file content and connection, here with session/request_permission at
// the start of a prompt ("Trust" is remembered in the state directory).

// loadConfig merges every source for the workspace folders (none: user
// file and environment only).
func (s *Server) loadConfig(folders []string) (config.Config, []string, error) {
	return s.conf.Load(folders, nil, nil)
}

// askTrust asks once per file content and connection whether to trust
// each untrusted workspace config file (config.Trust), and reports whether
// anything was trusted (the caller then loads the configuration again).
func (s *Server) askTrust(ctx context.Context, ss *session, un []config.Untrusted) bool {
	trusted := false
	for _, u := range un {
		if !s.conf.Trust().FirstAsk(u) {
			continue
		}
		id := ss.nextToolID("trust")
		title := "Trust " + safetext.Line(u.File) + "?"
		content := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(config.TrustQuestion(u)))}
		ss.update(ctx, acp.StartToolCall(id, title, acp.WithStartKind(acp.ToolKindOther),
			acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartContent(content)))
		tc := acp.ToolCallUpdate{ToolCallId: id, Title: &title, Kind: acp.Ptr(acp.ToolKindOther), Status: acp.Ptr(acp.ToolCallStatusPending), Content: content}
		a, err := ss.ask(ctx, id, &tc, []acp.PermissionOption{
			{OptionId: optTrust, Name: "Trust", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: optNotNow, Name: "Not now", Kind: acp.PermissionOptionKindRejectOnce},
		}, nil)
		if err != nil || !a.Allow {
			s.log.Info("workspace config not trusted", "file", u.File, "answer", a.raw, "err", err)
			ss.update(ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed),
				acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("Not trusted: its settings stay ignored."))})))
			continue
		}
		note := "Trusted: its settings now apply."
		if err := s.conf.Trust().Grant(u); err != nil {
			note = fmt.Sprintf("Trusted for this connection only: %v", err)
		}
		ss.update(ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(note))})))
		trusted = true
	}
	return trusted
}

// Option ids of the trust question.
const (
	optTrust  = "trust"
	optNotNow = "not-now"
)
