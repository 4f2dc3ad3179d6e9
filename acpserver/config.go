package acpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/statedir"
)

// Configuration over ACP is the same schema and sources as for the LSP
// server and the CLI (agent/config), minus the editor-settings layer: ACP
// clients configure agents with the process environment and files. The
// folders are the session's cwd. Workspace trust (agent/config trust.go)
// works as in the editor: keys of an untrusted .agentls/config.json that
// act on the user's behalf are withheld, and the user is asked once per
// file content and connection, here with session/request_permission at
// the start of a prompt ("Trust" is remembered in the state directory).

// trustState is the trust granted or asked about over this connection.
type trustState struct {
	mu      sync.Mutex
	granted map[[2]string]bool
	asked   map[[2]string]bool
}

// trustStore is the trust file in the configured environment.
func (s *Server) trustStore() *config.TrustStore {
	return config.NewTrustStore(config.DefaultTrustFile(s.opts.Env))
}

// loadConfig merges every source for the workspace folders (none: user
// file and environment only).
func (s *Server) loadConfig(folders []string) (config.Config, []string, error) {
	store := s.trustStore()
	t := &s.trust
	return config.Load(config.LoadOptions{
		UserFile: s.opts.UserConfigFile,
		Folders:  folders,
		Env:      s.opts.Env,
		Trusted: func(file, sum string) bool {
			t.mu.Lock()
			ok := t.granted[[2]string{file, sum}]
			t.mu.Unlock()
			return ok || store.Trusted(file, sum)
		},
	})
}

// askTrust asks once per file content and connection whether to trust
// each untrusted workspace config file, and reports whether anything was
// trusted (the caller then loads the configuration again).
func (s *Server) askTrust(ctx context.Context, ss *session, un []config.Untrusted) bool {
	trusted := false
	for _, u := range un {
		key := [2]string{u.File, u.SHA256}
		t := &s.trust
		t.mu.Lock()
		if t.asked == nil {
			t.asked, t.granted = map[[2]string]bool{}, map[[2]string]bool{}
		}
		first := !t.asked[key]
		t.asked[key] = true
		t.mu.Unlock()
		if !first {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "This workspace's %s wants to act on your behalf. Trusting its current content would:\n", u.File)
		for _, a := range u.Actions {
			fmt.Fprintf(&b, "- %s\n", a)
		}
		fmt.Fprintf(&b, "Until you trust it, these settings are ignored: %s.", strings.Join(u.Keys, ", "))
		id := ss.nextToolID("trust")
		title := "Trust " + u.File + "?"
		content := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(b.String()))}
		ss.update(ctx, acp.StartToolCall(id, title, acp.WithStartKind(acp.ToolKindOther),
			acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartContent(content)))
		tc := acp.ToolCallUpdate{ToolCallId: id, Title: &title, Kind: acp.Ptr(acp.ToolKindOther), Status: acp.Ptr(acp.ToolCallStatusPending), Content: content}
		opt, _, err := ss.ask(ctx, id, &tc, []acp.PermissionOption{
			{OptionId: optTrust, Name: "Trust", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: optNotNow, Name: "Not now", Kind: acp.PermissionOptionKindRejectOnce},
		}, nil)
		if err != nil || opt != optTrust {
			s.log.Info("workspace config not trusted", "file", u.File, "answer", opt, "err", err)
			ss.update(ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed),
				acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("Not trusted: its settings stay ignored."))})))
			continue
		}
		t.mu.Lock()
		t.granted[key] = true
		t.mu.Unlock()
		note := "Trusted: its settings now apply."
		if statedir.Dir(s.opts.Env) == "" {
			note = "Trusted for this connection only: no state directory to remember it in."
		} else if err := s.trustStore().Trust(u.File, u.SHA256); err != nil {
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
