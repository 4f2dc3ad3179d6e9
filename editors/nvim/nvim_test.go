package nvim_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPluginLoads: the plugin file defines every command without loading
// any module, every module loads, bad setup() options are clear errors, and
// commands run without a server say what is missing.
func TestPluginLoads(t *testing.T) {
	t.Parallel()
	r := runScript(t, "load.lua", options{})
	var loaded int
	r.fact(t, "loaded", &loaded)
	if loaded != 1 {
		t.Errorf("g:loaded_agentls = %d, want 1", loaded)
	}
	var commands map[string]int
	r.fact(t, "commands", &commands)
	for _, name := range []string{"AgentRun", "AgentCancel", "AgentLog", "AgentAccept", "AgentReject", "AgentNextHunk", "AgentPrevHunk"} {
		if commands[name] != 2 {
			t.Errorf("exists(':%s') = %d, want 2 (a user command)", name, commands[name])
		}
	}
	if !r.boolean(t, "lazy") {
		t.Error("plugin/agentls.lua loaded Lua modules at startup; commands must require them lazily")
	}
	var modules map[string]string
	r.fact(t, "modules", &modules)
	if len(modules) != 9 {
		t.Errorf("modules = %v, want 9 entries", modules)
	}
	for m, status := range modules {
		if status != "ok" {
			t.Errorf("require(%q): %s", m, status)
		}
	}
	if got := r.str(t, "bad_cmd_error"); !strings.Contains(got, "cmd must be a non-empty list") {
		t.Errorf("setup{cmd={}} error = %q", got)
	}
	if got := r.str(t, "bad_settings_error"); !strings.Contains(got, "settings") {
		t.Errorf("setup{settings='model'} error = %q", got)
	}
	var msgs []string
	r.fact(t, "no_server_messages", &msgs)
	if len(msgs) != 2 {
		t.Fatalf("messages without a server = %q, want 2", msgs)
	}
	for _, m := range msgs {
		if !strings.Contains(m, "no agentls server is attached") {
			t.Errorf("message %q does not say that no server is attached", m)
		}
	}
	// vim.notify at ERROR level sets v:errmsg to the message; a Lua error
	// in a command would set it to "E5108: Error executing lua …".
	if got := r.str(t, "errmsg"); strings.Contains(got, "E5108") || strings.Contains(got, "Error executing") {
		t.Errorf("v:errmsg = %q: a command raised a Lua error", got)
	}
	if got := r.str(t, "helptags_error"); got != "" {
		t.Errorf(":helptags on doc/agentls.txt: %s", got)
	}
	var tags int
	r.fact(t, "help_tags", &tags)
	if tags < 20 {
		t.Errorf("doc/agentls.txt defines %d help tags, want every command, option section and highlight", tags)
	}
	if got, line := r.str(t, "help_buffer"), r.str(t, "help_line"); got != "agentls.txt" || !strings.Contains(line, "*:AgentRun*") {
		t.Errorf(":help :AgentRun opened %q at %q", got, line)
	}
}

// TestAttach: one server per root, initialize answered by agentls, the
// filetypes filter, shared clients within a root and special buffers left
// alone.
func TestAttach(t *testing.T) {
	t.Parallel()
	r := runScript(t, "attach.lua", options{})
	if got := r.str(t, "server_name"); got != "agentls" {
		t.Errorf("serverInfo.name = %q, want agentls", got)
	}
	if got := r.str(t, "server_version"); got == "" {
		t.Error("serverInfo.version is empty")
	}
	if got := r.str(t, "offset_encoding"); got != "utf-16" {
		t.Errorf("offset_encoding = %q, want utf-16", got)
	}
	if got, want := r.str(t, "root_dir"), r.str(t, "ws"); got != want {
		t.Errorf("root_dir = %q, want the workspace %q (marked by .agentls)", got, want)
	}
	if got := r.str(t, "filetype_go"); got != "go" {
		t.Errorf("filetype of main.go = %q", got)
	}
	if r.boolean(t, "txt_attached_with_filter") {
		t.Error("notes.txt was attached although filetypes = {'go'}")
	}
	if !r.boolean(t, "txt_client_same") {
		t.Error("after setup{} again, notes.txt did not join the root's client")
	}
	var maps map[string]string
	r.fact(t, "txt_keymaps", &maps)
	for lhs, desc := range map[string]string{" aa": "agentls: accept", "]a": "agentls: next_hunk", " ar": "agentls: run_range"} {
		found := false
		for k, d := range maps {
			if strings.HasSuffix(k, lhs) && d == desc {
				found = true
			}
		}
		if !found {
			t.Errorf("buffer keymap %q (%s) missing: %v", lhs, desc, maps)
		}
	}
	var goMaps int
	r.fact(t, "go_keymaps", &goMaps)
	if goMaps != 0 {
		t.Errorf("main.go, attached before keymaps were configured, has %d keymaps", goMaps)
	}
	var notes []string
	r.fact(t, "notifications", &notes)
	if len(notes) != 1 || !strings.Contains(notes[0], `unknown keymap action "bogus"`) {
		t.Errorf("notifications = %q, want one warning about the unknown keymap action", notes)
	}
	if !r.boolean(t, "sub_client_same") {
		t.Error("a file in a subdirectory started a second client")
	}
	if !r.boolean(t, "other_client_differs") {
		t.Error("a file under another root shared the first root's client")
	}
	if got, want := r.str(t, "other_root"), r.str(t, "other_expected_root"); got != want {
		t.Errorf("other root = %q, want %q (marked by .git)", got, want)
	}
	var count int
	r.fact(t, "client_count", &count)
	if count != 2 {
		t.Errorf("%d agentls clients, want 2", count)
	}
	if r.boolean(t, "scratch_attached") {
		t.Error("a scratch (nofile) buffer was attached")
	}
	if got := r.str(t, "status"); got != "" {
		t.Errorf("status() with no runs = %q, want empty", got)
	}
}

// TestTextSync: after edits with CRLF, emoji, CJK and tabs, the server's
// view of the buffer (agentls/document) is exactly the buffer.
func TestTextSync(t *testing.T) {
	t.Parallel()
	r := runScript(t, "textsync.lua", options{})
	if got := r.str(t, "fileformat"); got != "dos" {
		t.Fatalf("fileformat = %q, want dos", got)
	}
	if got, want := r.str(t, "opened_text"), r.str(t, "file_text"); got != want {
		t.Errorf("server text after open = %q, want the file %q", got, want)
	}
	got, want := r.str(t, "edited_text"), r.str(t, "buffer_text")
	if got != want {
		t.Errorf("server text after edits:\n%q\nbuffer:\n%q", got, want)
	}
	for _, frag := range []string{"😀X three\r\n", "日本!\r\n新しい語\r\n", "appended 🎉\r\n\r\n", "\tTabbed"} {
		if !strings.Contains(got, frag) {
			t.Errorf("server text %q lacks %q", got, frag)
		}
	}
	if strings.HasPrefix(got, "one") || !strings.HasPrefix(got, "0987654321") {
		t.Errorf("server text %q: first line deleted and 50 typed digits expected", got)
	}
	var sv, cv int
	r.fact(t, "server_version", &sv)
	r.fact(t, "client_version", &cv)
	if sv != cv {
		t.Errorf("server has version %d, Neovim %d", sv, cv)
	}
	if got, want := r.str(t, "lf_text"), r.str(t, "lf_buffer_text"); got != want || got != "alpha\nbéta ✓\n" {
		t.Errorf("LF buffer: server %q, buffer %q, want %q", got, want, "alpha\nbéta ✓\n")
	}
}

// TestSettings: setup's settings are the initializationOptions; later
// update_settings() and setup() calls send
// workspace/didChangeConfiguration {settings: {agentls: …}}; the client
// offers versioned workspace edits and work-done progress.
func TestSettings(t *testing.T) {
	t.Parallel()
	r := runScript(t, "settings.lua", options{})
	msgs := readWire(t, r.str(t, "wire"))
	inits := byMethod(msgs, "initialize")
	if len(inits) != 1 {
		t.Fatalf("%d initialize requests, want 1", len(inits))
	}
	var init struct {
		InitializationOptions json.RawMessage `json:"initializationOptions"`
		Capabilities          struct {
			Workspace struct {
				ApplyEdit     bool `json:"applyEdit"`
				WorkspaceEdit struct {
					DocumentChanges bool `json:"documentChanges"`
				} `json:"workspaceEdit"`
			} `json:"workspace"`
			Window struct {
				WorkDoneProgress bool `json:"workDoneProgress"`
			} `json:"window"`
		} `json:"capabilities"`
		ClientInfo struct {
			Name string `json:"name"`
		} `json:"clientInfo"`
	}
	if err := json.Unmarshal(inits[0].Params, &init); err != nil {
		t.Fatal(err)
	}
	want := `{"model":{"baseURL":"http://127.0.0.1:9/v1","name":"first-model","apiKeyEnv":"MY_KEY","contextWindow":32000},
	  "mode":"preview","maxTurns":7,
	  "mcpServers":{"fs":{"command":"node","args":["server.js"],"env":{"A":"1"}}},
	  "tools":{"runCommand":"off"},
	  "preview":{"diagnostics":false}}`
	if !jsonEqual(t, init.InitializationOptions, []byte(want)) {
		t.Errorf("initializationOptions = %s\nwant %s", init.InitializationOptions, want)
	}
	caps := init.Capabilities
	if !caps.Workspace.ApplyEdit || !caps.Workspace.WorkspaceEdit.DocumentChanges || !caps.Window.WorkDoneProgress {
		t.Errorf("capabilities: applyEdit=%v documentChanges=%v workDoneProgress=%v, want all true",
			caps.Workspace.ApplyEdit, caps.Workspace.WorkspaceEdit.DocumentChanges, caps.Window.WorkDoneProgress)
	}
	if init.ClientInfo.Name != "Neovim" {
		t.Errorf("clientInfo.name = %q", init.ClientInfo.Name)
	}

	changes := byMethod(msgs, "workspace/didChangeConfiguration")
	if len(changes) != 2 {
		t.Fatalf("%d didChangeConfiguration notifications, want 2: %v", len(changes), changes)
	}
	for i, want := range []string{
		`{"settings":{"agentls":{"model":{"name":"second-model"},"mode":"apply"}}}`,
		`{"settings":{"agentls":{"model":{"name":"third-model"},"maxTurns":3}}}`,
	} {
		if !jsonEqual(t, changes[i].Params, []byte(want)) {
			t.Errorf("didChangeConfiguration #%d = %s\nwant %s", i+1, changes[i].Params, want)
		}
	}
	if got := r.str(t, "document"); got != "after settings\n" {
		t.Errorf("server text after settings changes = %q", got)
	}
	var n int
	r.fact(t, "client_count", &n)
	if n != 1 {
		t.Errorf("%d clients after re-running setup(), want the same 1", n)
	}
}

// TestCheckhealth: :checkhealth agentls reports setup, the binary and its
// version, and whether a model is configured.
func TestCheckhealth(t *testing.T) {
	t.Parallel()
	r := runScript(t, "health.lua", options{})
	expect := func(key string, want ...string) {
		t.Helper()
		got := r.str(t, key)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: report lacks %q:\n%s", key, w, got)
			}
		}
	}
	expect("before_setup", "agentls", "OK: Neovim 0.", "ERROR: setup() has not been called")
	expect("no_model", "OK: setup() called", "OK: server: agentls ", "WARNING: no model configured",
		"OK: client 1: agentls ", "encoding utf-16")
	expect("with_model", "OK: model: health-model at http://127.0.0.1:9/v1")
	expect("missing_binary", "ERROR: server binary", "no-such-agentls", `export PATH="$(go env GOPATH)/bin:$PATH"`)
	expect("with_replay", "OK: model: replaying demo.cassette.json")
	if strings.Contains(r.str(t, "with_replay"), "no model configured") {
		t.Error("with a replay set the report still warns that no model is configured")
	}
	// Installed but not on PATH: the fix named is PATH, not a reinstall.
	expect("not_on_path", "ERROR: agentls-not-on-path is installed in ", "/gobin, but that directory is not on PATH",
		`export PATH="$(go env GOPATH)/bin:$PATH"`, "/gobin/agentls-not-on-path' }")
	if strings.Contains(r.str(t, "not_on_path"), "go install") {
		t.Error("an installed binary not on PATH is met with install advice")
	}
	expect("start_error_not_on_path", "could not start agentls-not-on-path: agentls-not-on-path is installed in ",
		"not on PATH", `export PATH="$(go env GOPATH)/bin:$PATH"`, ":checkhealth agentls")
	var failures int
	r.fact(t, "start_failures_reported", &failures)
	if failures != 1 {
		t.Errorf("a missing binary was reported %d times for two buffers, want once", failures)
	}
	if strings.Contains(r.str(t, "with_model"), "no model configured") {
		t.Error("with a model configured the report still warns about it")
	}
}

// TestPositions: LSP offsets in utf-8/16/32 map to byte columns and back,
// snapping inside surrogate pairs and clamping past the end.
func TestPositions(t *testing.T) {
	t.Parallel()
	r := runScript(t, "positions.lua", options{})
	var cases map[string]json.RawMessage
	r.fact(t, "cases", &cases)
	want := map[string]string{
		"u16_to_byte_0": "0", "u16_to_byte_1": "1", "u16_to_byte_2_mid_pair": "1", "u16_to_byte_3": "5",
		"u16_to_byte_4": "6", "u16_to_byte_5": "9", "u16_to_byte_6_end": "10", "u16_to_byte_99_clamp": "10",
		"u32_to_byte_2": "5", "u32_to_byte_3": "6", "u8_to_byte_5": "5", "u8_to_byte_99_clamp": "10",
		"u16_from_byte_5": "3", "u16_from_byte_9": "5", "u16_from_byte_end": "6", "u32_from_byte_end": "5",
		"u8_from_byte_6": "6", "empty_u16": "0", "round_trip": "true",
		"line_range":    `{"start":{"line":0,"character":0},"end":{"line":1,"character":6}}`,
		"line_range_u8": `{"start":{"line":1,"character":0},"end":{"line":1,"character":10}}`,
	}
	for k, w := range want {
		got, ok := cases[k]
		if !ok {
			t.Errorf("%s: missing", k)
			continue
		}
		if !jsonEqual(t, got, []byte(w)) {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
	}
}

// TestRunLog: agentls/runEvent notifications build the run log and the run
// states (dedupe by seq, streamed text joined into lines, failures kept).
func TestRunLog(t *testing.T) {
	t.Parallel()
	r := runScript(t, "runlog.lua", options{})
	// "no problems left" only of a file the run's problems were reported in.
	var probs []string
	r.fact(t, "problems_log", &probs)
	if want := "[r5] started: problems|  ⚠ calc.go introduces 1 problem|    calc.go:3: undefined: z|  ✓ calc.go: no problems left"; strings.Join(probs, "|") != want {
		t.Errorf("problems in the run log:\n%s\nwant:\n%s", strings.Join(probs, "\n"), strings.ReplaceAll(want, "|", "\n"))
	}
	for key, want := range map[string]string{
		"status_running": "agent: 1 running", "status_two": "agent: 2 running", "status_done": "",
		"r3_after_exit": "failed",
	} {
		if got := r.str(t, key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	var runs map[string]struct {
		Status string `json:"status"`
		Tools  int    `json:"tools"`
		Error  any    `json:"error"`
	}
	r.fact(t, "runs", &runs)
	if r1 := runs["r1"]; r1.Status != "finished" || r1.Tools != 2 || r1.Error != nil {
		t.Errorf("r1 = %+v, want finished with 2 tool calls", r1)
	}
	if r2 := runs["r2"]; r2.Status != "failed" || r2.Error != "model: 401 invalid_api_key" {
		t.Errorf("r2 = %+v, want failed with the model error", r2)
	}
	var lines []string
	r.fact(t, "log", &lines)
	want := []string{
		"[r1] started: add a greeting",
		"  │ Let me look.",
		"  │ Reading now",
		`  → read_file {"path":"a.go"}`,
		"  ✓ read_file 12 lines",
		"  → edit_file ",
		"  ✗ edit_file old_string not found",
		"  ✎ proposal for a.go",
		"[r2] started: second",
		"  Σ turn 1: 1,200 tokens in (200 cached) / 30 out · $0.0021",
		"[r1] finished",
		"  Added the greeting.",
		"  Done.",
		"  ↳ 1,200 tokens in (200 cached) / 30 out · $0.0021 · :AgentReport r1 · :AgentRevert r1",
		"[r2] failed: model: 401 invalid_api_key",
		"  ↳ :AgentReport r2",
		"[r4] started: streams",
		"  │ All done.",
		"[r4] finished", // the streamed answer is not repeated
		"  ↳ :AgentReport r4",
		"[r3] started: third",
		"[r3] server exited (code 2, signal 0)",
	}
	if len(lines) != len(want) {
		t.Fatalf("log has %d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("log line %d = %q, want prefix %q", i+1, lines[i], want[i])
		}
	}
	// Arguments read as the model sent them: no "\/" from the JSON encoder.
	if edit := lines[5]; !strings.Contains(edit, `"a/b.go"`) || !strings.Contains(edit, `"// x"`) || strings.Contains(edit, `\/`) {
		t.Errorf("edit_file log line = %q, want its arguments without \\/", edit)
	}
	if strings.Contains(strings.Join(lines, "\n"), "DUPLICATE") {
		t.Error("an event with a repeated seq was logged")
	}
	var wins int
	r.fact(t, "log_windows", &wins)
	if wins != 2 || !r.boolean(t, "current_is_log") {
		t.Errorf(":AgentLog: %d windows, focus on log = %v; want a split with the cursor in it", wins, r.boolean(t, "current_is_log"))
	}
	if r.boolean(t, "log_modifiable") {
		t.Error("the run log buffer is modifiable")
	}
}

// mark is a preview extmark as tests/harness.lua reports it.
type mark struct {
	Row    int    `json:"row"`
	EndRow any    `json:"end_row"` // a number, or nil without a range
	HL     string `json:"hl"`
	Virt   []struct {
		Text string `json:"text"`
		HL   string `json:"hl"`
	} `json:"virt"`
	Above bool   `json:"above"`
	Hint  string `json:"hint"`
}

func (m mark) virtTexts() []string {
	var out []string
	for _, v := range m.Virt {
		out = append(out, v.Text)
	}
	return out
}

// TestPreviewRender: proposals become extmarks — replaced lines
// highlighted, new lines as virtual lines (above for pure insertions, with
// UTF-16 ranges mapped past an emoji and tabs expanded), conflicted hunks
// marked — and the review commands send the protocol's arguments.
func TestPreviewRender(t *testing.T) {
	t.Parallel()
	r := runScript(t, "preview_render.lua", options{})
	var marks []mark
	r.fact(t, "marks", &marks)
	type want struct {
		row, endRow int // endRow -1: no range
		hl          string
		virt        []string
		virtHL      string
		above       bool
	}
	// Extmarks come back sorted by position.
	wants := []want{
		{row: 1, endRow: 1, hl: "AgentlsDelete"},
		{row: 1, endRow: -1, virt: []string{"func a() { return }", "func b() {}"}, virtHL: "AgentlsAdd"},
		{row: 2, endRow: 2, hl: "AgentlsDelete"},
		{row: 2, endRow: -1, virt: []string{`x := "😀 EMOJI" // end`}, virtHL: "AgentlsAdd"},
		{row: 3, endRow: -1, virt: []string{"// inserted", "// twice"}, virtHL: "AgentlsAdd", above: true},
		{row: 3, endRow: 3, hl: "AgentlsConflict"},
		{row: 3, endRow: -1, virt: []string{"    INDENTED"}, virtHL: "AgentlsConflict"},
		{row: 4, endRow: 4, hl: "AgentlsConflict"}, // the hunk's own status wins
	}
	if len(marks) != len(wants) {
		t.Fatalf("%d extmarks, want %d: %+v", len(marks), len(wants), marks)
	}
	// Marks on the same row may come in either order: match each wanted one.
	used := make([]bool, len(marks))
	for _, w := range wants {
		found := false
		for i, m := range marks {
			end := -1
			if f, ok := m.EndRow.(float64); ok && m.HL != "" {
				end = int(f)
			}
			if used[i] || m.Row != w.row || end != w.endRow || m.HL != w.hl || m.Above != w.above ||
				!reflect.DeepEqual(m.virtTexts(), w.virt) {
				continue
			}
			if len(w.virt) > 0 && m.Virt[0].HL != w.virtHL {
				continue
			}
			used[i], found = true, true
			break
		}
		if !found {
			t.Errorf("no extmark %+v among %+v", w, marks)
		}
	}
	for _, m := range marks {
		wantHint := "agent: :AgentAccept / :AgentReject"
		switch {
		case m.Row == 4 && m.HL != "":
			// The reason is in :AgentExplain's float, not cut at the window edge.
			wantHint = "agent: conflicted (you changed these lines): :AgentExplain / :AgentReject"
		case m.Row == 3 && m.HL != "":
			wantHint = "agent: conflicted (you changed these lines): :AgentExplain / :AgentReject"
		case m.Row == 2 && m.HL != "":
			wantHint = "agent: last accept failed: :AgentExplain / :AgentAccept / :AgentReject"
		case len(m.Virt) > 0 && !m.Above:
			wantHint = "" // the virtual lines of a replacement carry no hint
		}
		if strings.TrimSpace(m.Hint) != wantHint {
			t.Errorf("mark at row %d (hl %q): hint %q, want %q", m.Row, m.HL, m.Hint, wantHint)
		}
	}
	var buffer []string
	r.fact(t, "buffer", &buffer)
	if len(buffer) != 5 || buffer[1] != "func a() {}" {
		t.Errorf("rendering changed the buffer: %q", buffer)
	}

	var at, atAfter []any
	r.fact(t, "at", &at)
	if !reflect.DeepEqual(at, []any{nil, "h1", "h2", "h3", "h4"}) {
		// Row 3 holds both the insertion h3 and the conflicted c1; the
		// smaller span wins and both span one row, so the first found (h3).
		t.Errorf("hunk under cursor rows 0-4 = %v", at)
	}
	r.fact(t, "at_after_edit", &atAfter)
	if !reflect.DeepEqual(atAfter, []any{"h1", "h2"}) {
		t.Errorf("after inserting 2 lines above, rows 3-4 = %v, want h1 h2", atAfter)
	}
	var next, prev []int
	r.fact(t, "next_rows", &next)
	r.fact(t, "prev_rows", &prev)
	if !reflect.DeepEqual(next, []int{3, 4, 5, 6, 3}) {
		t.Errorf("AgentNextHunk rows = %v, want 3 4 5 6 then wrap to 3", next)
	}
	if !reflect.DeepEqual(prev, []int{6, 5}) {
		t.Errorf("AgentPrevHunk rows from row 3 = %v, want wrap to 6 then 5", prev)
	}
	if r.boolean(t, "no_hunk_accept") {
		t.Error("accept with no hunk under the cursor sent a request")
	}
	var cleared int
	r.fact(t, "marks_after_clear", &cleared)
	if cleared != 0 {
		t.Errorf("%d extmarks after clear", cleared)
	}

	uri := "file://" + filepath.Join(r.dir, "ws", "main.go")
	var args []string
	for _, m := range byMethod(readWire(t, r.str(t, "wire")), "workspace/executeCommand") {
		args = append(args, string(m.Params))
	}
	wantArgs := []string{
		`{"command":"agentls.accept","arguments":[{"runId":"r1","uri":"` + uri + `","hunkId":"h2"}]}`,
		`{"command":"agentls.reject","arguments":[{"uri":"` + uri + `"}]}`,
		`{"command":"agentls.accept","arguments":[{}]}`,
	}
	if len(args) != len(wantArgs) {
		t.Fatalf("executeCommand requests = %v, want %d", args, len(wantArgs))
	}
	for i := range wantArgs {
		if !jsonEqual(t, []byte(args[i]), []byte(wantArgs[i])) {
			t.Errorf("executeCommand #%d = %s\nwant %s", i+1, args[i], wantArgs[i])
		}
	}
}
