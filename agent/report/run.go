package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Run is one agent run as the report shows it; a sub-agent started by the
// task tool is a Run inside its parent's task Step.
type Run struct {
	ID, SessionID, ParentID string
	Path                    string // the transcript file
	Folders                 []string
	Model, Mode             string
	Prompt                  string // what the user asked
	Task                    string // the task message the model got (prompt plus editor context)
	Started, Ended          time.Time

	Status        string // finished, failed, cancelled; "" when the transcript ends early
	Answer, Error string
	Turns         int
	ToolCalls     int
	Usage         Usage

	Steps   []*Step
	Changes []*Change // one per file the run proposed to change, in first-staged order
	Checks  []Check
	Notes   []string // what the report itself has to say (a cut transcript)
}

// Duration is the run's wall time, zero when unknown.
func (r *Run) Duration() time.Duration {
	if r.Started.IsZero() || r.Ended.IsZero() {
		return 0
	}
	return r.Ended.Sub(r.Started)
}

// Step is one entry of a run's timeline.
type Step struct {
	Kind     string // turn, tool, staged, todo, check, fate, note
	Time     time.Time
	Turn     int
	Text     string
	Usage    *Usage
	Duration time.Duration
	Finish   string // the model's finish reason
	Tool     *ToolStep
	Change   *Staged
	Todos    []Todo
	Check    *Check
	Fate     *Fate
	Title    string // note: what kind of note
	Warn     bool   // note: an error or warning
}

// ToolStep is a tool call and its result.
type ToolStep struct {
	ID, Name  string
	Args      string // indented JSON, or the raw text when it was not JSON
	ArgsError string
	Result    string
	Summary   string
	IsError   bool
	Done      bool // a result was recorded
	Truncated bool // the result the model got was cut by the agent
	Sub       *Run // the sub-agent, for task calls
	// Inner are the tool calls a script call's program made, in order.
	Inner  []*ToolStep
	prompt string
}

// Staged is one staging of a file: the change as it stood after a tool
// call.
type Staged struct {
	Path    string
	Diff    string
	Created bool
	Pending bool
}

// Change is a file the run proposed to change: its last staged diff and
// what the user decided.
type Change struct {
	Path    string
	Diff    string
	Created bool
	Pending bool
	Fates   []Fate
}

// Fate is a review outcome recorded after the run (agent.RecordFate).
type Fate struct {
	Time   time.Time
	Path   string
	Fate   string
	Hunks  int
	Reason string
}

// Check is a check run on the proposal (tests, linters).
type Check struct {
	Name     string
	Passed   bool
	ExitCode int
	Seconds  float64
	Output   string
	NotRun   bool // could not run (command not installed): neither passed nor failed
}

// build turns one transcript's records into its run and nested sub-runs.
func build(recs []record) *Run {
	var main []record
	subs := map[string][]record{}
	var subOrder []string
	for _, rec := range recs {
		if rec.SubRunID != "" {
			if _, ok := subs[rec.SubRunID]; !ok {
				subOrder = append(subOrder, rec.SubRunID)
			}
			subs[rec.SubRunID] = append(subs[rec.SubRunID], rec)
			continue
		}
		main = append(main, rec)
	}
	run := buildOne(main)
	var runs []*Run
	for _, id := range subOrder {
		sub := buildOne(subs[id])
		if sub.ID == "" {
			sub.ID = id
		}
		sub.ParentID = subs[id][0].ParentRunID
		runs = append(runs, sub)
	}
	attachSubs(run, runs)
	return run
}

// attachSubs puts each sub-agent under the task call that started it (the
// call whose prompt its task carries), and any it cannot place at the end.
func attachSubs(run *Run, subs []*Run) {
	byID := map[string]*Run{run.ID: run}
	for _, s := range subs {
		byID[s.ID] = s
	}
	for _, s := range subs {
		parent := byID[s.ParentID]
		if parent == nil || parent == s {
			parent = run
		}
		placed := false
		for _, st := range parent.Steps {
			t := st.Tool
			if t == nil || t.Name != "task" || t.Sub != nil {
				continue
			}
			if t.prompt != "" && (strings.Contains(s.Task, t.prompt) || s.Prompt == t.prompt) {
				t.Sub, placed = s, true
				break
			}
		}
		if !placed {
			for _, st := range parent.Steps { // no prompt matched: the first free task call
				if t := st.Tool; t != nil && t.Name == "task" && t.Sub == nil {
					t.Sub, placed = s, true
					break
				}
			}
		}
		if !placed {
			parent.Steps = append(parent.Steps, &Step{Kind: "tool", Time: s.Started, Tool: &ToolStep{Name: "task", Sub: s, Done: true}})
		}
	}
}

func buildOne(recs []record) *Run {
	r := &Run{}
	tools := map[string]*ToolStep{}
	changes := map[string]*Change{}
	requested := map[int]time.Time{}
	for _, rec := range recs {
		t := parseTime(rec.Time)
		if r.Started.IsZero() && !t.IsZero() && rec.Kind != "fate" {
			r.Started = t
		}
		switch rec.Kind {
		case "session":
			r.ID, r.SessionID, r.Folders, r.Model, r.Mode, r.Prompt = rec.RunID, rec.SessionID, rec.Folders, rec.Model, rec.Mode, rec.Prompt
		case "start":
			if r.ID == "" {
				r.ID = rec.RunID
			}
			r.Task = rec.Task
		case "request":
			requested[rec.Turn] = t
		case "response":
			st := &Step{Kind: "turn", Time: t, Turn: rec.Turn, Text: rec.Text, Usage: rec.Usage, Finish: rec.FinishReason}
			if at, ok := requested[rec.Turn]; ok && !t.IsZero() {
				st.Duration = t.Sub(at)
			}
			r.Steps = append(r.Steps, st)
		case "tool_call":
			ts := &ToolStep{ID: rec.ID, Name: rec.Name, Args: prettyJSON(rec.Args), ArgsError: rec.ArgsError, prompt: taskPrompt(rec)}
			if rec.ID != "" {
				tools[rec.ID] = ts
			}
			if p := tools[rec.ParentCallID]; rec.ParentCallID != "" && p != nil {
				p.Inner = append(p.Inner, ts) // a script's call: shown under the script
				continue
			}
			r.Steps = append(r.Steps, &Step{Kind: "tool", Time: t, Tool: ts})
		case "tool_result":
			ts := tools[rec.ID]
			if ts == nil || rec.ID == "" {
				ts = &ToolStep{ID: rec.ID, Name: rec.Name}
				r.Steps = append(r.Steps, &Step{Kind: "tool", Time: t, Tool: ts})
			}
			ts.Result, ts.Summary, ts.IsError, ts.Done = rec.Text, rec.Summary, rec.IsError, true
			ts.Truncated = strings.Contains(rec.Text, "[output truncated:")
		case "staged":
			pending := rec.Pending == nil || *rec.Pending
			r.Steps = append(r.Steps, &Step{Kind: "staged", Time: t, Change: &Staged{Path: rec.Path, Diff: rec.Diff, Created: rec.Created, Pending: pending}})
			c := changes[rec.Path]
			if c == nil {
				c = &Change{Path: rec.Path}
				changes[rec.Path] = c
				r.Changes = append(r.Changes, c)
			}
			c.Diff, c.Created, c.Pending = rec.Diff, rec.Created, pending
		case "fate":
			f := Fate{Time: t, Path: rec.Path, Fate: rec.Fate, Hunks: rec.Hunks, Reason: rec.Reason}
			r.Steps = append(r.Steps, &Step{Kind: "fate", Time: t, Fate: &f})
			if c := matchChange(r.Changes, rec.Path); c != nil {
				c.Fates = append(c.Fates, f)
				if c.Diff == "" && rec.Diff != "" {
					c.Diff = rec.Diff // what landed (apply mode), when nothing stayed staged
				}
			}
		case "todo":
			r.Steps = append(r.Steps, &Step{Kind: "todo", Time: t, Todos: rec.Todos})
		case "check":
			c := Check{Name: rec.Name, Output: rec.Output, Seconds: rec.Seconds, NotRun: rec.NotRun}
			if rec.Passed != nil {
				c.Passed = *rec.Passed
			}
			if rec.ExitCode != nil {
				c.ExitCode = *rec.ExitCode
			}
			r.Checks = append(r.Checks, c)
			r.Steps = append(r.Steps, &Step{Kind: "check", Time: t, Check: &c})
		case "finish":
			r.Status, r.Answer, r.Error, r.Turns, r.Ended = rec.Status, rec.Answer, rec.Error, rec.Turns, t
			if rec.Usage != nil {
				r.Usage = *rec.Usage
			}
		case "error":
			r.Steps = append(r.Steps, &Step{Kind: "note", Time: t, Title: "error in " + rec.Where, Text: rec.Error, Warn: true})
		case "warning":
			r.Steps = append(r.Steps, &Step{Kind: "note", Time: t, Title: "warning", Text: rec.Warning, Warn: true})
		case "retry":
			r.Steps = append(r.Steps, &Step{Kind: "note", Time: t, Title: "model call retried", Text: rec.Reason})
		case "problems":
			r.Steps = append(r.Steps, &Step{Kind: "note", Time: t, Title: "language server", Text: problemsText(rec, r.Folders)})
		case "truncated":
			r.Steps = append(r.Steps, &Step{Kind: "note", Time: t, Title: "transcript cut", Text: rec.Note, Warn: true})
		default:
			r.Steps = append(r.Steps, &Step{Kind: "note", Time: t, Title: rec.Kind, Text: prettyJSON(rec.raw)})
		}
	}
	for _, st := range r.Steps {
		if st.Kind == "tool" {
			r.ToolCalls++
		}
	}
	return r
}

// problemsText is a problems record as lines to read: "calc.go:3: error:
// undefined: x (compiler)" per problem, or "calc.go: no problems".
func problemsText(rec record, folders []string) string {
	name := rec.Path
	for _, f := range folders {
		if rel, err := filepath.Rel(f, rec.Path); err == nil && filepath.IsLocal(rel) {
			name = rel
			break
		}
	}
	if len(rec.Items) == 0 && rec.Introduced == 0 {
		return name + ": no problems"
	}
	var b strings.Builder
	for _, it := range rec.Items {
		fmt.Fprintf(&b, "%s:%d: ", name, it.Range.Start.Line+1)
		if it.Severity != "" {
			b.WriteString(it.Severity + ": ")
		}
		b.WriteString(it.Message)
		if it.Source != "" {
			b.WriteString(" (" + it.Source + ")")
		}
		b.WriteByte('\n')
	}
	if more := rec.Introduced - len(rec.Items); more > 0 {
		fmt.Fprintf(&b, "… and %d more\n", more)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// matchChange finds the change a fate is about: fates name files by
// absolute path, staged records by workspace-relative path.
func matchChange(cs []*Change, path string) *Change {
	for _, c := range cs {
		if c.Path == path || strings.HasSuffix(path, "/"+c.Path) {
			return c
		}
	}
	return nil
}

// taskPrompt is the prompt argument of a task call, used to find its
// sub-agent.
func taskPrompt(rec record) string {
	if rec.Name != "task" {
		return ""
	}
	var p struct {
		Prompt string `json:"prompt"`
	}
	if json.Unmarshal(rec.Args, &p) != nil {
		var s string // arguments that were not JSON are recorded as a JSON string
		if json.Unmarshal(rec.Args, &s) == nil {
			_ = json.Unmarshal([]byte(s), &p)
		}
	}
	return p.Prompt
}

// prettyJSON indents JSON for reading; anything else is returned as text.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	if s, ok := v.(string); ok {
		return s
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(out)
}
