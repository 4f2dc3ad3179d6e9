package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/llm"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// Bounds of what a session carries from run to run.
const (
	// maxHistoryBytes bounds the conversation kept for the next run; the
	// run's own compaction works within the model's window anyway.
	maxHistoryBytes = 512 << 10
	// maxKnownBytes bounds one file's text remembered to show the user's
	// later changes; larger files are not remembered.
	maxKnownBytes = 256 << 10
	// maxChangeBytes bounds one file's diff of the user's changes in a
	// follow-up.
	maxChangeBytes = 4 << 10
	// maxNotes bounds the review notes kept for the next run.
	maxNotes = 50
)

// sessionState is what a session keeps between runs (and what is saved).
type sessionState struct {
	Title   string           `json:"title"`
	Created time.Time        `json:"created"`
	Updated time.Time        `json:"updated"`
	Runs    []string         `json:"runs"`
	History []HistoryMessage `json:"history,omitempty"`
	// Notes are review outcomes to tell the model on the next run.
	Notes []string `json:"notes,omitempty"`
	// Known is, per file the session's runs changed, the text the agent
	// last knew the file to hold (after an accept, at a reject, or the
	// base of a change still pending); the next run is told how the file
	// differs now.
	Known map[string]string `json:"known,omitempty"`
	// Model is the model chosen for this session (RunRequest.Model); ""
	// follows model.name.
	Model string `json:"model,omitempty"`
	// Usage and CostUSD sum the session's runs.
	Usage   llm.Usage `json:"usage,omitempty"`
	CostUSD *float64  `json:"costUSD,omitempty"`
}

// ProposalState is the review state of one proposal of the session, as
// the front-end that owns proposals reports it for a follow-up run.
type ProposalState struct {
	RunID      string
	Path       string
	Pending    int      // hunks awaiting review
	Conflicted int      // hunks that no longer apply
	Reasons    []string // why hunks are conflicted
	// Created: the proposal creates the file (it does not exist yet).
	Created bool
}

// SessionInfo summarises a session for listings (agentls/sessions).
type SessionInfo struct {
	ID      string
	Title   string
	Updated time.Time
	Runs    []string
	// Model is the session's chosen model ("" follows model.name).
	Model string
	// Usage and CostUSD sum the session's runs (CostUSD nil unpriced).
	Usage   llm.Usage
	CostUSD *float64
}

// Info summarises the session.
func (s *Session) Info() SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return SessionInfo{ID: s.id, Title: s.st.Title, Updated: s.st.Updated, Runs: slices.Clone(s.st.Runs), Model: s.st.Model, Usage: s.st.Usage, CostUSD: s.st.CostUSD}
}

// Active is the id of the session's run in progress, "" when none.
func (s *Session) Active() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// HasRun reports whether runID is one of the session's runs.
func (s *Session) HasRun(runID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.st.Runs, runID)
}

// Reserve makes runID the session's run in progress before it starts (so
// review decisions on it find the session even while it is queued, and no
// second run starts in the session meanwhile). It returns the id of the
// run already in progress, "" on success.
func (s *Session) Reserve(runID string) (busy string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != "" && s.active != runID {
		return s.active
	}
	s.active = runID
	if !slices.Contains(s.st.Runs, runID) {
		s.st.Runs = append(s.st.Runs, runID)
	}
	return ""
}

// Release ends runID's reservation when it never ran (cancelled while
// queued); Execute ends it itself otherwise.
func (s *Session) Release(runID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == runID {
		s.active = ""
	}
}

// begin marks the run active and returns the conversation it continues
// and the follow-up text: what happened since the previous run.
func (s *Session) begin(req RunRequest, view *workspace.View) ([]HistoryMessage, string) {
	s.mu.Lock()
	s.active = req.RunID
	if !slices.Contains(s.st.Runs, req.RunID) {
		s.st.Runs = append(s.st.Runs, req.RunID)
	}
	if s.st.Title == "" {
		s.st.Title = text.Clip(text.FirstLine(req.Prompt), 80)
	}
	history := slices.Clone(s.st.History)
	notes := s.st.Notes
	s.st.Notes = nil // told to this run; decisions made meanwhile go to the next
	known := maps.Clone(s.st.Known)
	s.mu.Unlock()
	if len(history) == 0 && len(notes) == 0 && len(req.Proposals) == 0 {
		return history, ""
	}
	return history, followupText(notes, req.Proposals, known, view)
}

// end records the run's conversation and what its changes left behind.
func (s *Session) end(r *SessionRun, out Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active = ""
	s.st.Updated = time.Now().UTC()
	s.st.Usage.PromptTokens += out.Usage.PromptTokens
	s.st.Usage.CompletionTokens += out.Usage.CompletionTokens
	s.st.Usage.TotalTokens += out.Usage.TotalTokens
	s.st.Usage.CachedTokens += out.Usage.CachedTokens
	if out.CostUSD != nil {
		c := *out.CostUSD
		if s.st.CostUSD != nil {
			c += *s.st.CostUSD
		}
		s.st.CostUSD = &c
	}
	if h := CarryHistory(out.History, maxHistoryBytes); len(h) > 0 || out.Status == StatusFinished {
		s.st.History = h
	}
	for _, p := range r.env.Changes.Files() {
		if f, ok := r.env.Changes.Get(p); ok && f.Pending() {
			s.remember(p, f.Base)
		}
	}
}

func (s *Session) remember(path, content string) {
	if s.st.Known == nil {
		s.st.Known = map[string]string{}
	}
	if len(content) > maxKnownBytes {
		delete(s.st.Known, path)
		return
	}
	s.st.Known[path] = content
}

// NoteRevert tells the session's next run that the user reverted a run's
// changes (summary: one line per file, as revert.Summary writes it), and
// that the files are as before that run where it says so.
func (s *Session) NoteRevert(runID, summary string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	line := fmt.Sprintf("- The user reverted the changes of run %s:\n%s", runID, indent(strings.TrimRight(summary, "\n"), "  "))
	s.st.Notes = append(s.st.Notes, line)
	if n := len(s.st.Notes); n > maxNotes {
		s.st.Notes = s.st.Notes[n-maxNotes:]
	}
	s.st.Updated = time.Now().UTC()
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// note records a review outcome for the next run (under s.mu).
func (s *Session) note(d Decision) {
	name := filepath.Base(d.Path)
	var line string
	switch {
	case d.Accepted:
		line = fmt.Sprintf("- The user accepted %s of your change to %s.", text.Plural(d.Hunks, "hunk"), name)
		s.remember(d.Path, d.Applied)
	case d.Reason != "":
		line = fmt.Sprintf("- The user rejected %s of your change to %s, saying: %q", text.Plural(d.Hunks, "hunk"), name, d.Reason)
		s.remember(d.Path, d.Document)
	default:
		line = fmt.Sprintf("- The user rejected %s of your change to %s (no reason given).", text.Plural(d.Hunks, "hunk"), name)
		s.remember(d.Path, d.Document)
	}
	s.st.Notes = append(s.st.Notes, line)
	if n := len(s.st.Notes); n > maxNotes {
		s.st.Notes = s.st.Notes[n-maxNotes:]
	}
	s.st.Updated = time.Now().UTC()
}

// followupText tells a follow-up run what happened since the previous
// one: review decisions, proposals still pending or conflicted, and how
// the user changed the files the session worked on.
func followupText(notes []string, props []ProposalState, known map[string]string, view *workspace.View) string {
	var b strings.Builder
	b.WriteString("## Since your previous run in this session\n")
	if len(notes) == 0 && len(props) == 0 {
		b.WriteString("- Nothing was accepted or rejected.\n")
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	pending := map[string]bool{}
	for _, p := range props {
		pending[p.Path] = true
		fmt.Fprintf(&b, "- Your change to %s is still awaiting review: %s pending", displayPath(p.Path, folders(view)), text.Plural(p.Pending, "hunk"))
		if p.Conflicted > 0 {
			fmt.Fprintf(&b, ", %s conflicted with the user's edits (%s)", text.Plural(p.Conflicted, "hunk"), strings.Join(p.Reasons, "; "))
		}
		if p.Created {
			// The tools show a pending new file as proposed (front-ends
			// that set Setup.PendingNew; tools/pending_new.go).
			b.WriteString(". Do not redo it unless asked; it does not exist yet, reading it shows the text you proposed, and changing it replaces that proposal.\n")
		} else {
			b.WriteString(". Do not redo it unless asked; your reads show the file without it.\n")
		}
	}
	if view != nil {
		for _, path := range slices.Sorted(maps.Keys(known)) {
			if pending[path] {
				continue
			}
			cur := ""
			snap, err := view.Read(path)
			switch {
			case err == nil:
				cur = snap.Text
			case errors.Is(err, fs.ErrNotExist):
			default:
				continue
			}
			if cur == known[path] {
				continue
			}
			rel := displayPath(path, folders(view))
			diff := tools.StagedFile{Path: path, Base: known[path], Text: cur}.Unified(rel)
			if len(diff) > maxChangeBytes {
				diff = cutUTF8(diff, maxChangeBytes) + "\n[diff truncated; read the file]"
			}
			fmt.Fprintf(&b, "- The user changed %s since you last saw it:\n```diff\n%s```\n", rel, diff)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func folders(view *workspace.View) []string {
	if view == nil {
		return nil
	}
	return view.Folders()
}

// History returns a copy of the conversation the session carries to its
// next run, for front-ends that show it again (ACP's session/load replays
// it to the editor).
func (s *Session) History() []HistoryMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.History)
}
