package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/atomicfile"
	"github.com/agentls/agentls/internal/workspace"
)

// CassetteVersion is the cassette format this package reads and writes
// (docs/protocol.md "Deterministic model").
const CassetteVersion = 1

// replayBaseURL and replayModel stand in for the endpoint when replaying
// without a model configuration; nothing is ever sent to them.
const (
	replayBaseURL = "http://replay.invalid/v1"
	replayModel   = "replay"
)

// Cassette is a recorded run: for each model call in order, what the model
// was asked and the exact SSE body it streamed back. Replaying the raw body
// through an http.RoundTripper keeps go-openai's stream parsing and our
// assembly in the path, so a replayed run behaves like the recorded one.
type Cassette struct {
	Version int    `json:"version"`
	Turns   []Turn `json:"turns"`
	// Completions are recorded inline completions, answered by where they
	// were asked (CompletionKey), any number of times, in any order:
	// completions depend on typing speed, so they cannot be a sequence.
	Completions []CompletionTurn `json:"completions,omitempty"`
}

// CompletionTurn is one recorded completion. A request is answered by the
// entry whose Before ends the text before its cursor and whose After
// starts the text after it; the longest such match wins.
type CompletionTurn struct {
	Before string `json:"before"`
	After  string `json:"after"`
	// SSE is the response body as streamed (text_completion chunks, or
	// chat chunks for fim "chat").
	SSE string `json:"sse"`
}

// Bounds of a recorded completion's key: the cursor's line up to the
// cursor and the line before it, and the rest of the cursor's line:
// enough to tell the places of a demo apart, little enough that the same
// keystrokes in another editor replay it.
const (
	recordBeforeBytes = 200
	recordAfterBytes  = 80
)

// recordKey cuts a request's key to what a recording keeps.
func recordKey(k CompletionKey) CompletionKey {
	before := k.Before
	if len(before) > recordBeforeBytes {
		before = before[len(before)-recordBeforeBytes:]
	}
	lines := 0
	for i := len(before) - 1; i >= 0; i-- {
		if before[i] == '\n' {
			if lines++; lines == 2 {
				before = before[i+1:]
				break
			}
		}
	}
	after := k.After
	if i := strings.IndexByte(after, '\n'); i >= 0 {
		after = after[:i]
	}
	if len(after) > recordAfterBytes {
		after = after[:recordAfterBytes]
	}
	return CompletionKey{Before: strings.ToValidUTF8(before, ""), After: strings.ToValidUTF8(after, "")}
}

// findCompletion returns the recorded completion for key.
func (c *Cassette) findCompletion(key CompletionKey) (CompletionTurn, bool) {
	best, found := CompletionTurn{}, false
	for _, t := range c.Completions {
		if strings.HasSuffix(key.Before, t.Before) && strings.HasPrefix(key.After, t.After) &&
			(!found || len(t.Before)+len(t.After) > len(best.Before)+len(best.After)) {
			best, found = t, true
		}
	}
	return best, found
}

// Turn is one model call.
type Turn struct {
	Request RequestPrint `json:"request"`
	// SSE is the response body (text/event-stream) as the server sent it.
	SSE string `json:"sse"`
}

// RequestPrint identifies a request by what the model would see: the
// conversation and the tool list. The system prompt is left out (it names
// the workspace folder, OS and date, which differ between machines), and so
// are sampling settings and the model name, so a cassette replays under any
// configuration.
type RequestPrint struct {
	SHA256      string         `json:"sha256"`
	Tools       []string       `json:"tools"`
	ToolsSHA256 string         `json:"toolsSha256"`
	Messages    []MessagePrint `json:"messages"`
}

// MessagePrint is one message of a request: its hash, and enough text to
// say what differs when a replay diverges.
type MessagePrint struct {
	Role    string `json:"role"`
	SHA256  string `json:"sha256"`
	Preview string `json:"preview"`
}

// ReplayError is a replayed run's request that the cassette cannot answer.
// It is never retried.
type ReplayError struct {
	Path    string
	Turn    int // 1-based model call
	Message string
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("replay %s: turn %d: %s", e.Path, e.Turn, e.Message)
}

// MaxCassetteBytes bounds a cassette file read for replay; a recorded run
// of the default 25 turns is far below it.
const MaxCassetteBytes = 64 << 20

// LoadCassette reads and checks a cassette file. It is opened like every
// file agentls reads for itself (workspace.ReadRegular): never blocking, so
// a FIFO named as the cassette cannot hang the run that replays it (or the
// agentls.run request starting it), regular files only, at most
// MaxCassetteBytes.
func LoadCassette(path string) (*Cassette, error) {
	b, err := workspace.ReadRegular(path, MaxCassetteBytes)
	if err != nil {
		return nil, fmt.Errorf("replay: read cassette: %w", err)
	}
	var c Cassette
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("replay: %s is not a cassette (JSON): %w", path, err)
	}
	if c.Version != CassetteVersion {
		return nil, fmt.Errorf("replay: %s has cassette version %d; this agentls reads version %d", path, c.Version, CassetteVersion)
	}
	return &c, nil
}

// EditorContextOpen and EditorContextClose delimit the editor context block
// that a run started from an editor appends to the user's task (the file,
// selection and diagnostics; agent.buildTaskMessage writes it with these).
const (
	EditorContextOpen  = "\n\n<editor>\n"
	EditorContextClose = "</editor>"
)

// EditorToolPrefix starts the names of the tools an editor gives the agent
// (tools/editortools.Prefix; a test keeps the two equal). Like the editor
// context block, they say which editor ran the task, not what the task
// was, so replay leaves them out of the tool list it matches: a run
// recorded on the CLI replays in an editor that offers its own tools. A
// recording whose model called one fails on the next turn when the replay
// does not offer it, with the usual divergence error.
const EditorToolPrefix = "editor__"

// WithoutEditorContext returns a user message's text without the editor
// context block at its end (unchanged when it has none).
//
// This is the replay rule for editors: a cassette matches a request by the
// user's task and the conversation, not by where the editor's cursor was.
// The same task typed in Neovim, VS Code or `agentls run` then replays the
// same recording (a run recorded on the CLI, like examples/hello's, replays
// in the editor, and one recorded in the editor on the CLI), while another
// task, other file contents (tool results) or another tool list still
// diverge with an error naming the turn.
func WithoutEditorContext(s string) string {
	if !strings.HasSuffix(s, EditorContextClose) {
		return s
	}
	// The first opening: the block's own selection may quote one.
	if i := strings.Index(s, EditorContextOpen); i >= 0 {
		return s[:i]
	}
	return s
}

// fingerprint computes the RequestPrint of a chat-completions request body,
// with what the editor adds left out: the editor context block of user
// messages (WithoutEditorContext) and the editor's own tools
// (EditorToolPrefix). fingerprintExact keeps them: cassettes recorded
// before that rule hashed the whole request, and still replay.
func fingerprint(body []byte) (RequestPrint, error) { return fingerprintOf(body, true) }

func fingerprintExact(body []byte) (RequestPrint, error) { return fingerprintOf(body, false) }

func fingerprintOf(body []byte, stripEditor bool) (RequestPrint, error) {
	var req struct {
		Messages []map[string]any `json:"messages"`
		Tools    []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return RequestPrint{}, fmt.Errorf("decode the model request: %w", err)
	}
	var p RequestPrint
	all := sha256.New()
	for _, m := range req.Messages {
		role, _ := m["role"].(string)
		if role == "system" || role == "developer" {
			continue
		}
		if c, ok := m["content"].(string); ok && role == "user" && stripEditor {
			if t := WithoutEditorContext(c); t != c {
				m["content"] = t
			}
		}
		canon, _ := json.Marshal(m) // maps marshal with sorted keys
		all.Write(canon)
		all.Write([]byte{'\n'})
		sum := sha256.Sum256(canon)
		p.Messages = append(p.Messages, MessagePrint{Role: role, SHA256: hex.EncodeToString(sum[:]), Preview: messagePreview(m)})
	}
	tools := sha256.New()
	for _, t := range req.Tools {
		if fn, ok := t["function"].(map[string]any); ok && stripEditor {
			if name, _ := fn["name"].(string); strings.HasPrefix(name, EditorToolPrefix) {
				continue
			}
		}
		canon, _ := json.Marshal(t)
		tools.Write(canon)
		tools.Write([]byte{'\n'})
		if fn, ok := t["function"].(map[string]any); ok {
			name, _ := fn["name"].(string)
			p.Tools = append(p.Tools, name)
		}
	}
	p.ToolsSHA256 = hex.EncodeToString(tools.Sum(nil))
	all.Write([]byte(p.ToolsSHA256))
	p.SHA256 = hex.EncodeToString(all.Sum(nil))
	return p, nil
}

// messagePreview is a short readable form of a message for divergence errors.
func messagePreview(m map[string]any) string {
	var parts []string
	if c, ok := m["content"].(string); ok && c != "" {
		parts = append(parts, c)
	}
	if calls, ok := m["tool_calls"].([]any); ok {
		for _, c := range calls {
			if cm, ok := c.(map[string]any); ok {
				if fn, ok := cm["function"].(map[string]any); ok {
					parts = append(parts, fmt.Sprintf("%v(%v)", fn["name"], fn["arguments"]))
				}
			}
		}
	}
	s := strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	const maxLen = 200
	if r := []rune(s); len(r) > maxLen {
		s = string(r[:maxLen]) + "…"
	}
	return s
}

// diverge explains how a request differs from the recorded one.
func diverge(rec, got RequestPrint) string {
	if rec.ToolsSHA256 != got.ToolsSHA256 {
		return fmt.Sprintf("the tool list differs from the recording (recorded %s; now %s)",
			strings.Join(rec.Tools, ", "), strings.Join(got.Tools, ", "))
	}
	for i := 0; i < max(len(rec.Messages), len(got.Messages)); i++ {
		switch {
		case i >= len(rec.Messages):
			return fmt.Sprintf("the request has %d messages, the recording %d; extra message %d (%s): %q",
				len(got.Messages), len(rec.Messages), i+1, got.Messages[i].Role, got.Messages[i].Preview)
		case i >= len(got.Messages):
			return fmt.Sprintf("the request has %d messages, the recording %d; missing message %d (%s): %q",
				len(got.Messages), len(rec.Messages), i+1, rec.Messages[i].Role, rec.Messages[i].Preview)
		case rec.Messages[i].SHA256 != got.Messages[i].SHA256:
			return fmt.Sprintf("message %d (%s) differs from the recording: recorded %q, now %q",
				i+1, got.Messages[i].Role, rec.Messages[i].Preview, got.Messages[i].Preview)
		}
	}
	return "the request differs from the recording"
}

// replayer answers chat-completions requests from a cassette, in order.
type replayer struct {
	path string
	c    *Cassette
	mu   sync.Mutex
	next int
}

// RoundTrip serves the next recorded turn when the request matches it,
// and a completion by its place.
func (r *replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if key, ok := completionKeyOf(req.Context()); ok {
		t, found := r.c.findCompletion(key)
		if !found {
			return nil, &ReplayError{Path: r.path, Message: fmt.Sprintf("no recorded completion for the cursor after %q", lastLine(key.Before))}
		}
		return sseResponse(req, t.SSE), nil
	}
	got, err := fingerprint(body)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", r.path, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	turn := r.next + 1
	if r.next >= len(r.c.Turns) {
		return nil, &ReplayError{Path: r.path, Turn: turn, Message: fmt.Sprintf(
			"the run asks the model more often than recorded (the cassette holds %d turns); last message: %q",
			len(r.c.Turns), lastPreview(got))}
	}
	rec := r.c.Turns[r.next]
	if rec.Request.SHA256 != got.SHA256 {
		if exact, err := fingerprintExact(body); err != nil || rec.Request.SHA256 != exact.SHA256 {
			return nil, &ReplayError{Path: r.path, Turn: turn, Message: diverge(rec.Request, got)}
		}
	}
	r.next++
	return sseResponse(req, rec.SSE), nil
}

// sseResponse is a recorded stream served as the server sent it.
func sseResponse(req *http.Request, sse string) *http.Response {
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"text/event-stream"}},
		Body:          io.NopCloser(strings.NewReader(sse)),
		ContentLength: int64(len(sse)),
		Request:       req,
	}
}

// lastLine is the last line of s, for messages.
func lastLine(s string) string {
	if i := strings.LastIndexByte(strings.TrimRight(s, "\n"), '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func lastPreview(p RequestPrint) string {
	if len(p.Messages) == 0 {
		return ""
	}
	return p.Messages[len(p.Messages)-1].Preview
}

// recorder passes requests to next and saves every successful response
// into the cassette at path, rewriting the file after each turn so an
// interrupted run still leaves a readable cassette.
type recorder struct {
	path string
	next http.RoundTripper
	mu   sync.Mutex
	c    Cassette
	err  error // the first save failure, reported by every later request
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	key, isCompletion := completionKeyOf(req.Context())
	var fp RequestPrint
	if !isCompletion {
		if fp, err = fingerprint(body); err != nil {
			return nil, fmt.Errorf("record %s: %w", r.path, err)
		}
	}
	r.mu.Lock()
	saveErr := r.err
	r.mu.Unlock()
	if saveErr != nil {
		return nil, saveErr
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	done := func(b []byte) { r.add(Turn{Request: fp, SSE: string(b)}) }
	if isCompletion {
		k := recordKey(key)
		done = func(b []byte) { r.addCompletion(CompletionTurn{Before: k.Before, After: k.After, SSE: string(b)}) }
	}
	resp.Body = &teeBody{rc: resp.Body, done: done}
	return resp, nil
}

// add appends a turn and saves the cassette.
func (r *recorder) add(t Turn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.c.Version = CassetteVersion
	r.c.Turns = append(r.c.Turns, t)
	r.save(false)
}

// addCompletion keeps a completion (the latest one for its place) and
// saves the cassette.
func (r *recorder) addCompletion(t CompletionTurn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.c.Version = CassetteVersion
	r.c.Completions = slices.DeleteFunc(r.c.Completions, func(o CompletionTurn) bool { return o.Before == t.Before && o.After == t.After })
	r.c.Completions = append(r.c.Completions, t)
	r.save(true)
}

// cassetteWrites serialises the read-merge-write of cassettes: the agent's
// client records its turns and the completion client its completions into
// the same file, each keeping the other's section.
var cassetteWrites sync.Mutex

// save writes r's own section (completions or turns) over the file's
// current content, keeping the other section as the file holds it.
func (r *recorder) save(completions bool) {
	cassetteWrites.Lock()
	defer cassetteWrites.Unlock()
	out := r.c
	if old, err := LoadCassette(r.path); err == nil {
		if completions {
			out.Turns = old.Turns
		} else {
			out.Completions = old.Completions
		}
	}
	if err := writeCassette(r.path, &out); err != nil && r.err == nil {
		r.err = fmt.Errorf("record: %w", err)
	}
}

// checkRecordPath refuses a record path that exists and is not a regular
// file (a FIFO, a device, a directory): the cassette replaces it by
// rename, which would silently swap a special file for a regular one.
func checkRecordPath(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("record: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("record: %s: %w (it is %s); record to a regular file", path, workspace.ErrNotRegular, fileKind(fi.Mode()))
	}
	return nil
}

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// writeCassette replaces path atomically (atomicfile.WriteFile). A
// cassette holds prompts, code and answers, so it is owner-only (0600).
func writeCassette(path string, c *Cassette) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write cassette: %w", err)
	}
	return nil
}

// teeBody keeps a copy of what is read from a response body and hands it
// to done once, when the body is closed.
type teeBody struct {
	rc   io.ReadCloser
	buf  bytes.Buffer
	done func([]byte)
	once sync.Once
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.buf.Write(p[:n])
	return n, err
}

func (t *teeBody) Close() error {
	err := t.rc.Close()
	t.once.Do(func() { t.done(slices.Clone(t.buf.Bytes())) })
	return err
}

// readBody reads a request body and leaves a fresh copy in place.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read the model request: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}
