package lspserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// sync makes one round trip, so every notification sent before it has been
// handled (they run in wire order, before the next request is read).
func (s *session) sync(t *testing.T) {
	t.Helper()
	err := s.c.Call(lsptest.Context(t), lspserver.MethodDocument, map[string]string{"uri": "untitled:sync"}, nil)
	if err == nil {
		t.Fatal("sync request unexpectedly succeeded")
	}
}

// eventLog records the view's events.
type eventLog struct {
	mu     sync.Mutex
	events []workspace.Event
}

func (l *eventLog) add(e workspace.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) has(path string, kind workspace.EventKind) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.events, func(e workspace.Event) bool { return e.Path == path && e.Kind == kind && !e.Buffer })
}

func TestWatchedFilesRegistrationAndInvalidation(t *testing.T) {
	caps := lsptest.DefaultCapabilities()
	yes := true
	caps.Workspace.DidChangeWatchedFiles = &protocol.DidChangeWatchedFilesClientCapabilities{DynamicRegistration: &yes}
	s := newSession(t, lsptest.InitOptions{Capabilities: &caps}, lspserver.Options{})
	ctx := lsptest.Context(t)

	m, err := s.c.Await(ctx, protocol.MethodClientRegisterCapability, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reg protocol.RegistrationParams
	if err := m.DecodeParams(&reg); err != nil {
		t.Fatal(err)
	}
	if len(reg.Registrations) != 1 || reg.Registrations[0].Method != protocol.MethodWorkspaceDidChangeWatchedFiles {
		t.Fatalf("registration = %s", m)
	}
	var opts protocol.DidChangeWatchedFilesRegistrationOptions
	if err := protocol.Unmarshal(reg.Registrations[0].RegisterOptions, &opts); err != nil {
		t.Fatal(err)
	}
	if len(opts.Watchers) != 1 || opts.Watchers[0].GlobPattern != protocol.Pattern("**/*") {
		t.Fatalf("watchers = %+v", opts.Watchers)
	}

	changed := s.write(t, "changed.txt", "one\n")
	removed := s.write(t, "removed.txt", "gone soon\n")
	checkDisk(t, s, "changed.txt", "one\n") // now in the read cache
	checkDisk(t, s, "removed.txt", "gone soon\n")
	events := &eventLog{}
	defer s.srv.View().Subscribe(events.add)()

	s.write(t, "changed.txt", "two\n")
	created := s.write(t, "created.txt", "new\n")
	if err := os.Remove(removed); err != nil {
		t.Fatal(err)
	}
	err = s.c.Notify(ctx, protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
		{URI: uri.File(changed), Type: protocol.FileChangeTypeChanged},
		{URI: uri.File(created), Type: protocol.FileChangeTypeCreated},
		{URI: uri.File(removed), Type: protocol.FileChangeTypeDeleted},
		{URI: "untitled:ignored", Type: protocol.FileChangeTypeChanged},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.sync(t)
	for _, want := range []struct {
		path string
		kind workspace.EventKind
	}{{changed, workspace.Changed}, {created, workspace.Created}, {removed, workspace.Removed}} {
		if !events.has(want.path, want.kind) {
			t.Errorf("no %v event for %s after didChangeWatchedFiles; events: %+v", want.kind, want.path, events.events)
		}
	}
	checkDisk(t, s, "changed.txt", "two\n")
}

func TestNoRegistrationWithoutDynamicSupport(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	s.sync(t)
	for _, m := range s.c.Received() {
		if m.Method == protocol.MethodClientRegisterCapability {
			t.Fatalf("server registered a capability the client cannot register: %s", m)
		}
	}
}

func TestWorkspaceFolderChanges(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	s := newSession(t, lsptest.InitOptions{Folders: []string{a}}, lspserver.Options{})
	ctx := lsptest.Context(t)
	for _, f := range []string{filepath.Join(a, "a.txt"), filepath.Join(b, "b.txt")} {
		if err := os.WriteFile(f, []byte(filepath.Base(f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ua, ub := uri.File(filepath.Join(a, "a.txt")), uri.File(filepath.Join(b, "b.txt"))
	if _, err := s.c.Document(ctx, ua); err != nil {
		t.Fatal(err)
	}
	_, err := s.c.Document(ctx, ub)
	wantCode(t, err, lsptest.CodeInvalidParams, "outside the workspace")

	err = s.c.Notify(ctx, protocol.MethodWorkspaceDidChangeWorkspaceFolders, &protocol.DidChangeWorkspaceFoldersParams{
		Event: protocol.WorkspaceFoldersChangeEvent{
			Added:   []protocol.WorkspaceFolder{{URI: uri.File(b), Name: "b"}},
			Removed: []protocol.WorkspaceFolder{{URI: uri.File(a), Name: "a"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.c.Document(ctx, ub)
	if err != nil || d.Text != "b.txt" {
		t.Fatalf("b.txt after adding its folder: %+v, %v", d, err)
	}
	_, err = s.c.Document(ctx, ua)
	wantCode(t, err, lsptest.CodeInvalidParams, "outside the workspace")
	if got := s.srv.Folders(); !slices.Equal(got, []string{b}) {
		t.Errorf("Folders() = %v, want [%s]", got, b)
	}
}

// TestRootFallbacks: without workspaceFolders, rootUri and then rootPath
// give the folder.
func TestRootFallbacks(t *testing.T) {
	for _, name := range []string{"rootUri", "rootPath"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("root"), 0o644); err != nil {
				t.Fatal(err)
			}
			params := map[string]any{"processId": nil, "capabilities": map[string]any{}}
			if name == "rootUri" {
				params["rootUri"] = string(uri.File(dir))
			} else {
				params["rootPath"] = dir
			}
			c := lsptest.NewInProcess(t, lspserver.Options{NoWatcher: true})
			ctx := lsptest.Context(t)
			if err := c.Call(ctx, protocol.MethodInitialize, params, nil); err != nil {
				t.Fatal(err)
			}
			d, err := c.Document(ctx, uri.File(filepath.Join(dir, "f.txt")))
			if err != nil || d.Text != "root" {
				t.Fatalf("document in %s folder: %+v, %v", name, d, err)
			}
		})
	}
}

func TestConfiguration(t *testing.T) {
	init := map[string]any{"mode": "apply", "maxTurns": 3}
	s := newSession(t, lsptest.InitOptions{InitializationOptions: init}, lspserver.Options{})
	ctx := lsptest.Context(t)
	var seen []string
	var mu sync.Mutex
	s.srv.OnSettingsChange(func(v json.RawMessage) { mu.Lock(); seen = append(seen, string(v)); mu.Unlock() })
	assertJSON(t, s.srv.InitializationOptions(), `{"maxTurns":3,"mode":"apply"}`)
	if s.srv.Settings() != nil {
		t.Errorf("settings before any didChangeConfiguration: %s", s.srv.Settings())
	}
	for _, tc := range []struct{ settings, want string }{
		{`{"agentls":{"maxTurns":5},"other":{"x":1}}`, `{"maxTurns":5}`},
		{`{"maxTurns":7}`, `{"maxTurns":7}`},
		{`null`, `{"maxTurns":7}`}, // pull-model clients send null: keep the last settings
	} {
		err := s.c.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, json.RawMessage(`{"settings":`+tc.settings+`}`))
		if err != nil {
			t.Fatal(err)
		}
		s.sync(t)
		assertJSON(t, s.srv.Settings(), tc.want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Errorf("OnSettingsChange saw %v, want two changes", seen)
	}
}

func assertJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("bad JSON %q: %v", got, err)
	}
	_ = json.Unmarshal([]byte(want), &w)
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("got %s, want %s", gb, wb)
	}
}

func checkDisk(t *testing.T, s *session, name, want string) {
	t.Helper()
	d, err := s.c.Document(lsptest.Context(t), s.uri(name))
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != nil || d.Text != want {
		t.Fatalf("%s: version %v text %q, want null and %q", name, d.Version, d.Text, want)
	}
}
