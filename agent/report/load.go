package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
)

// MaxTranscriptBytes bounds what Load reads of one transcript. Transcripts
// are bounded when written (agent.DefaultTranscriptMaxBytes, 32 MiB); a
// larger file is not one of ours, and the page says where it was cut.
const MaxTranscriptBytes = 64 << 20

// record is one transcript line: the union of the fields the agent writes
// (agent/transcript.go and the records it names). Unknown kinds keep their
// raw JSON and are shown as they are, so records added later still reach
// the page.
type record struct {
	Kind        string `json:"kind"`
	Time        string `json:"time"`
	SubRunID    string `json:"subRunId"`
	ParentRunID string `json:"parentRunId"`

	// session, start
	RunID     string   `json:"runId"`
	SessionID string   `json:"sessionId"`
	Folders   []string `json:"folders"`
	Mode      string   `json:"mode"`
	Model     string   `json:"model"`
	Prompt    string   `json:"prompt"`
	Task      string   `json:"task"`

	// request, response
	Turn         int             `json:"turn"`
	Text         string          `json:"text"`
	ToolCalls    json.RawMessage `json:"toolCalls"` // response: the calls; finish: their count
	FinishReason string          `json:"finishReason"`
	Usage        *Usage          `json:"usage"`

	// tool_call, tool_result
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	ArgsError string          `json:"argsError"`
	IsError   bool            `json:"isError"`
	Summary   string          `json:"summary"`
	// ParentCallID is set on the inner calls of a script call.
	ParentCallID string `json:"parentCallId"`

	// staged, fate
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Pending *bool  `json:"pending"`
	Diff    string `json:"diff"`
	Fate    string `json:"fate"`
	Hunks   int    `json:"hunks"`
	Reason  string `json:"reason"`

	// finish, error, warning, retry, truncated
	Status  string `json:"status"`
	Answer  string `json:"answer"`
	Error   string `json:"error"`
	Turns   int    `json:"turns"`
	Where   string `json:"where"`
	Warning string `json:"warning"`
	Note    string `json:"note"`
	Dropped string `json:"dropped"`

	// todo
	Todos []Todo `json:"todos"`

	// problems: what the language server said of a file after a change
	Introduced int           `json:"introduced"`
	Items      []problemItem `json:"items"`

	// check (proposal checks)
	Passed   *bool   `json:"passed"`
	ExitCode *int    `json:"exitCode"`
	Output   string  `json:"output"`
	Seconds  float64 `json:"seconds"`
	NotRun   bool    `json:"notRun"`

	raw json.RawMessage
}

// Usage is the token count of a model call or a run, as the transcript has
// it; CachedTokens and CostUSD only when the endpoint or the pricing gave
// them.
type Usage struct {
	PromptTokens     int      `json:"promptTokens"`
	CompletionTokens int      `json:"completionTokens"`
	TotalTokens      int      `json:"totalTokens"`
	CachedTokens     int      `json:"cachedTokens"`
	CostUSD          *float64 `json:"costUSD"`
}

// Todo is one item of a plan (todo_write).
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Load reads the transcripts at paths (one run each; sub-agents are inside
// their parent's) and returns their runs, oldest first.
func Load(paths ...string) ([]*Run, error) {
	var runs []*Run
	for _, p := range paths {
		r, err := loadFile(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Started.Before(runs[j].Started) })
	return runs, nil
}

func loadFile(path string) (*Run, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open transcript %s: not a regular file", path)
	}
	recs, cut, err := readRecords(io.LimitReader(f, MaxTranscriptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	r := build(recs)
	r.Path = path
	if cut {
		r.Notes = append(r.Notes, fmt.Sprintf("The transcript is larger than %d MiB; the report shows its beginning only.", MaxTranscriptBytes>>20))
	}
	if r.ID == "" {
		return nil, fmt.Errorf("read transcript %s: no run in it (not an agentls transcript?)", path)
	}
	return r, nil
}

// readRecords decodes one record per line; a line that is not JSON (a
// transcript cut by a crash mid-write) becomes a visible "unreadable"
// record rather than failing the whole report.
func readRecords(rd io.Reader) (recs []record, cut bool, err error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	var total int64
	for {
		line, rerr := br.ReadBytes('\n')
		total += int64(len(line))
		if total > MaxTranscriptBytes {
			return recs, true, nil
		}
		if s := strings.TrimSpace(string(line)); s != "" {
			rec, raw := decodeRecord(s)
			rec.raw = raw
			recs = append(recs, rec)
		}
		if errors.Is(rerr, io.EOF) {
			return recs, false, nil
		}
		if rerr != nil {
			return recs, false, rerr
		}
	}
}

// redactor re-redacts every value: transcripts are redacted when written,
// and this keeps a transcript from an older agentls (or edited by hand)
// from leaking a key through its report.
var redactor = agent.NewRedactor()

func decodeRecord(line string) (record, json.RawMessage) {
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		s := redactor.String(line)
		return record{Kind: "unreadable", Text: s}, json.RawMessage(strconv.Quote(s))
	}
	raw, err := json.Marshal(redactor.Value(v))
	if err != nil {
		s := redactor.String(line)
		return record{Kind: "unreadable", Text: s}, json.RawMessage(strconv.Quote(s))
	}
	var rec record
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Kind == "" {
		return record{Kind: "unreadable", Text: string(raw)}, raw
	}
	return rec, raw
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// problemItem is a tools.Problem as the transcript holds it.
type problemItem struct {
	Range struct {
		Start struct {
			Line int `json:"line"`
		} `json:"start"`
	}
	Severity, Message, Source string
}
