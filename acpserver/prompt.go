package acpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// A prompt is one agent run (what agentls.run starts over LSP), in the
// session's agent.Session, so the model sees the conversation so far and
// what became of its earlier changes. The prompt answers when the run
// ends: end_turn, cancelled (session/cancel, session/close, a newer prompt
// or the client's disconnect), max_turn_requests (maxTurns) or max_tokens
// (tokenBudget); other failures are told in the message and end the turn.

// Cancel answers session/cancel. The Go SDK cancels the prompt's context
// itself, but after a second prompt on the same session it forgets the
// newer prompt's cancel func when the older one returns (acp-go-sdk
// v0.13.0, agent_gen.go session/prompt), so the session keeps its own.
func (s *Server) Cancel(_ context.Context, p acp.CancelNotification) error {
	if ss, err := s.session(p.SessionId); err == nil {
		ss.Cancel() // agent.Turns: the prompt in progress, if any
		s.log.Info("prompt cancelled", "session", ss.id)
	}
	return nil
}

// Prompt answers session/prompt.
func (s *Server) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.PromptResponse{}, err
	}
	defer leave()
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	cfg, warnings, cerr := s.loadConfig([]string{ss.cwd})
	task, err := buildPrompt(p.Prompt, ss.cwd, cfg.Model.ContextWindow)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	task = ss.expandCommand(task)
	if err := agent.CheckPromptFor(len(task), cfg.Model.ContextWindow); err != nil {
		return acp.PromptResponse{}, invalidParams("%v", err)
	}
	// agent.Turns.Begin: a prompt still in progress is cancelled and
	// awaited first. tctx ends with session/cancel, session/close, a
	// newer prompt or the client's disconnect.
	tctx, end, err := ss.Begin(ctx)
	if err != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	defer end()
	defer ss.dropBuffers()
	cancelled := func() (acp.PromptResponse, error) {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}

	if un := cfg.Untrusted(); len(un) > 0 {
		// The trust question waits for the person like a permission does:
		// at most the run's wall clock (an unanswered one is a "not now").
		qctx, qcancel := context.WithTimeoutCause(tctx, cfg.WallClock(), agent.ErrWallClock)
		trusted := s.askTrust(qctx, ss, un)
		qcancel()
		if tctx.Err() != nil {
			return cancelled()
		}
		if trusted {
			cfg, warnings, cerr = s.loadConfig([]string{ss.cwd})
		}
	}
	for _, w := range warnings {
		s.log.Warn("configuration warning", "warning", w)
	}
	if cerr != nil {
		s.log.Error("configuration error", "err", cerr)
		ss.update(tctx, acp.UpdateAgentThoughtText("agentls configuration: "+cerr.Error()+"\n"))
	}
	ss.mu.Lock()
	mode, model, chosen := ss.effectiveMode(), ss.effectiveModel(), ss.model
	ss.reqTimeout = time.Duration(cfg.Client.RequestTimeoutSeconds) * time.Second
	ss.redact = agent.NewRedactor(cfg.APIKey())
	ss.mu.Unlock()
	if _, err := ss.core.RunConfig(cfg, chosen); err != nil {
		return acp.PromptResponse{}, authRequired(err)
	}
	ss.noteConfig(cfg)

	var mgr *mcp.Manager
	seat, err := agent.Take(tctx, agent.Seating{Slots: &s.runs, Config: cfg,
		AwaitMCP: func(ctx context.Context, bound time.Duration) { mgr = ss.ensureMCP(ctx, cfg, bound) }})
	if err != nil {
		return cancelled()
	}
	defer seat.Release()
	// The run's wall clock (maxWallClockSeconds) starts here and bounds
	// the whole turn, its permission requests included: a client that
	// never answers one must not hold the prompt (and its run slot)
	// forever. The run inherits this deadline and its cause, so it ends
	// with ErrWallClock as if it had set the deadline itself.
	wctx, wcancel := context.WithTimeoutCause(tctx, cfg.WallClock(), agent.ErrWallClock)
	defer wcancel()
	defer ss.asking.begin(wctx)()
	if desk.AsksEarlier(mode) {
		ss.reviewPending(wctx)
	}
	if tctx.Err() != nil {
		return cancelled()
	}
	if wctx.Err() != nil {
		ss.update(tctx, acp.UpdateAgentMessageText(fmt.Sprintf("agentls: the run stopped: %v: no answer about the pending changes within maxWallClockSeconds (%s)", agent.ErrWallClock, cfg.WallClock())))
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}

	if ss.store != nil && ss.store.Refresh(ss.core) {
		s.log.Info("session continued from its newer file (another agentls saved it)", "session", ss.id)
	}
	runID := agent.NewRunID()
	te := newTurnEvents(ss, wctx)
	te.hold = desk.HoldsForChecks(mode, len(cfg.Checks))
	prepared, err := ss.core.Prepare(tctx, agent.Setup{
		ScriptSlots:   s.scripts,
		Config:        cfg,
		View:          ss.view,
		Approver:      te,
		Logger:        s.log.With("run", runID, "session", ss.id),
		TranscriptDir: s.opts.TranscriptDir, // NoState is agent.NoTranscript
		ViewDir:       s.opts.ViewDir,
		SyncTools:     mgr.SyncInto,
		BeforeRead:    func(path string) error { return ss.syncBuffer(wctx, path) },
		Lang:          s.lang.For(cfg, s.log.With("component", "lang")),
		Getenv:        s.opts.Env,
		PendingNew: func(path string) (tools.PendingNew, bool) {
			return desk.PendingNew(s.review.store.List(path), ss.core, runID)
		},
	}, agent.RunRequest{RunID: runID, Prompt: task, Proposals: agent.ProposalStates(ss.srv.review.store.List(""), ss.core), Mode: agent.RunRequestMode(mode), Model: chosen, OnEvent: te.handle})
	if errors.Is(err, agent.ErrPromptTooLarge) {
		return acp.PromptResponse{}, invalidParams("%v", err)
	}
	if err != nil {
		return acp.PromptResponse{}, requestFailed("agentls cannot start the agent: %v", err)
	}
	s.log.Info("prompt", "session", ss.id, "run", runID, "mode", mode, "model", model)
	out := seat.Execute(wctx, prepared).Outcome
	if answer := out.FinalAnswer(); answer != "" && !te.answered {
		te.answered = true
		ss.update(tctx, acp.UpdateAgentMessageText(answer))
	}
	heldNote := te.reviewHeld(out)
	s.review.store.ForgetRun(runID)
	ss.save()
	info := ss.core.Info()
	title, updated := info.Title, info.Updated.UTC().Format(time.RFC3339)
	ss.update(tctx, acp.SessionUpdate{SessionInfoUpdate: &acp.SessionSessionInfoUpdate{Title: &title, UpdatedAt: &updated}})
	s.log.Info("prompt ended", append([]any{"session", ss.id}, out.LogAttrs()...)...)
	switch out.Status {
	case agent.StatusFinished:
		if heldNote != "" {
			ss.update(tctx, acp.UpdateAgentMessageText("\n\n"+heldNote))
		}
		if tctx.Err() != nil { // cancelled while the changes were asked about
			return cancelled()
		}
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	case agent.StatusCancelled:
		if heldNote != "" {
			ss.update(tctx, acp.UpdateAgentMessageText("\n\n"+heldNote))
		}
		return cancelled()
	}
	ss.update(tctx, acp.UpdateAgentMessageText("\n\nagentls: the run stopped: "+out.Reason()))
	if heldNote != "" {
		ss.update(tctx, acp.UpdateAgentMessageText("\n"+heldNote))
	}
	switch {
	case errors.Is(out.Err, agent.ErrMaxTurns):
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests}, nil
	case errors.Is(out.Err, agent.ErrTokenBudget):
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTokens}, nil
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// reviewPending asks about the session's earlier changes still in review
// (desk.Desk.EarlierPending) before the new run starts.
func (ss *session) reviewPending(ctx context.Context) {
	for _, p := range ss.srv.review.EarlierPending(ss.core, ss.isHeld) {
		if ctx.Err() != nil {
			return
		}
		ss.askPending(ctx, ss.nextToolID("pending"), "Pending change to "+ss.display(p.Path)+" (earlier run)", p, "")
	}
}

// askPending asks about a change that waited (an earlier run's, or one
// the turn held) on a tool call of its own, showing its diff and checks
// (when not ""), and ends the call with what became of it.
func (ss *session) askPending(ctx context.Context, id acp.ToolCallId, title string, p proposal.Proposal, checks string) {
	content := []acp.ToolCallContent{diffContent(p.Path, p.Text, p.Result(), p.Created && p.Text == "")}
	if checks != "" {
		content = append(content, acp.ToolContent(acp.TextBlock(checks)))
	}
	ss.update(ctx, acp.StartToolCall(id, title, acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartContent(content), acp.WithStartLocations([]acp.ToolCallLocation{{Path: p.Path, Line: acp.Ptr(firstLine(p))}})))
	res := ss.reviewChange(ctx, id, p.RunID, p.Path, checks)
	status := acp.ToolCallStatusCompleted
	if res.written == 0 && !res.pending {
		status = acp.ToolCallStatusFailed
	}
	ss.update(ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(res.note))})))
}

// attachmentsMarker starts the attached context in the task text (and is
// where a replay cuts the user's message).
const attachmentsMarker = "\n\n<attachments>\n"

// buildPrompt turns the prompt's content blocks into the task: the text,
// with embedded resources (the editor's selection, files) and resource
// links named where they stand and attached after it.
func buildPrompt(blocks []acp.ContentBlock, cwd string, window int) (string, error) {
	var text, att strings.Builder
	size := 0
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
			size += len(b.Text.Text)
		case b.ResourceLink != nil:
			name := uriDisplay(b.ResourceLink.Uri, cwd)
			fmt.Fprintf(&text, "@%s", name)
			fmt.Fprintf(&att, "<link path=%q>(not attached; read it if you need it)</link>\n", name)
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				name := uriDisplay(r.TextResourceContents.Uri, cwd)
				fmt.Fprintf(&text, "@%s", name)
				body := r.TextResourceContents.Text
				size += len(body)
				fence := "```"
				for strings.Contains(body, fence) {
					fence += "`"
				}
				fmt.Fprintf(&att, "<file path=%q>\n%s\n%s\n%s\n</file>\n", name, fence, strings.TrimRight(body, "\n"), fence)
			case r.BlobResourceContents != nil:
				name := uriDisplay(r.BlobResourceContents.Uri, cwd)
				fmt.Fprintf(&text, "@%s", name)
				fmt.Fprintf(&att, "<file path=%q>(binary content, not attached)</file>\n", name)
			}
		case b.Image != nil, b.Audio != nil:
			return "", invalidParams("prompt[%d]: agentls takes text and embedded resources (promptCapabilities); images and audio are not supported", i)
		}
		if err := agent.CheckPromptFor(size, window); err != nil {
			return "", invalidParams("%v (the text with its attachments); attach less (the agent reads files itself)", err)
		}
	}
	task := strings.TrimSpace(text.String())
	if task == "" && att.Len() == 0 {
		return "", invalidParams("the prompt is empty")
	}
	if att.Len() > 0 {
		task += attachmentsMarker + att.String() + "</attachments>"
	}
	return task, nil
}

// uriDisplay names a resource: a file: URI as a path relative to cwd
// (with its line range, from a #L10 or #L10:20 fragment), else the URI.
func uriDisplay(uri, cwd string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	p := filepath.FromSlash(u.Path)
	if rel, err := filepath.Rel(cwd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		p = filepath.ToSlash(rel)
	}
	if f := u.Fragment; strings.HasPrefix(f, "L") {
		p += ":" + strings.NewReplacer("L", "", ":", "-").Replace(f)
	}
	return p
}
