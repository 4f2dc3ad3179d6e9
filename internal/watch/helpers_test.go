package watch

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"

	"github.com/agentls/agentls/internal/workspace"
)

func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }

// eventWait bounds how long a test waits for an event the watcher must
// deliver; it guards against hangs and is not a timing assertion.
const eventWait = 20 * time.Second

type fixture struct {
	t    *testing.T
	root string
	view *workspace.View
	w    *Watcher
	evs  chan workspace.Event
	logs *testwait.Buffer
}

// start builds files under a fresh folder, then starts a watcher on it.
func start(t *testing.T, files map[string]string, opts ...Option) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		write(t, filepath.Join(root, p), c)
	}
	f := &fixture{t: t, root: root, evs: make(chan workspace.Event, 4096), logs: &testwait.Buffer{}}
	f.view = workspace.New(workspace.Options{Folders: []string{root}})
	cancel := f.view.Subscribe(func(ev workspace.Event) {
		select {
		case f.evs <- ev:
		default:
			t.Error("event buffer full")
		}
	})
	t.Cleanup(cancel)
	log := slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts = append([]Option{WithDebounce(10 * time.Millisecond)}, opts...)
	f.w, err = New(f.view, log, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.w.Close() })
	return f
}

func (f *fixture) path(rel string) string { return filepath.Join(f.root, rel) }

// waitFor returns the first event for rel of the given kind, skipping
// others; it fails the test if none comes.
func (f *fixture) waitFor(rel string, kind workspace.EventKind) workspace.Event {
	f.t.Helper()
	return f.waitForAbs(f.path(rel), kind)
}

// waitForAbs is waitFor with an absolute path.
func (f *fixture) waitForAbs(want string, kind workspace.EventKind) workspace.Event {
	f.t.Helper()
	timeout := time.After(eventWait)
	for {
		select {
		case ev := <-f.evs:
			if ev.Path == want && ev.Kind == kind {
				return ev
			}
		case <-timeout:
			f.t.Fatalf("no %v event for %s", kind, want)
		}
	}
}

// want is an event waitForAll expects.
type want struct {
	rel  string
	kind workspace.EventKind
}

// waitForAll waits until each wanted event has come, in any order,
// skipping others; it fails the test if one does not come.
func (f *fixture) waitForAll(wants ...want) {
	f.t.Helper()
	left := map[want]bool{}
	for _, w := range wants {
		left[want{f.path(w.rel), w.kind}] = true
	}
	timeout := time.After(eventWait)
	for len(left) > 0 {
		select {
		case ev := <-f.evs:
			delete(left, want{ev.Path, ev.Kind})
		case <-timeout:
			f.t.Fatalf("events not received: %v", left)
		}
	}
}

// drain returns the events received so far without waiting.
func (f *fixture) drain() []workspace.Event {
	var out []workspace.Event
	for {
		select {
		case ev := <-f.evs:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// sync writes a sentinel file and waits for its event: every event caused
// before it has then been delivered (same inotify queue, earlier deadline).
func (f *fixture) sync(name string) []workspace.Event {
	f.t.Helper()
	write(f.t, f.path(name), "sentinel")
	var seen []workspace.Event
	want := f.path(name)
	timeout := time.After(eventWait)
	for {
		select {
		case ev := <-f.evs:
			if ev.Path == want {
				return seen
			}
			seen = append(seen, ev)
		case <-timeout:
			f.t.Fatalf("sentinel %s never reported", name)
		}
	}
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	s, err := f.view.Read(rel)
	if err != nil {
		f.t.Fatalf("read %s: %v", rel, err)
	}
	return s.Text
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func kinds(evs []workspace.Event, root string) []string {
	var out []string
	for _, e := range evs {
		out = append(out, []string{"changed", "created", "removed"}[e.Kind]+" "+strings.TrimPrefix(e.Path, root+"/"))
	}
	return out
}
