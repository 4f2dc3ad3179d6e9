package config

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLiveLoadsEverySource(t *testing.T) {
	f := newFixture(t)
	user := f.write(filepath.Join(f.home, "elsewhere.json"), `{"model":{"baseURL":"http://mine/v1"},"maxTurns":9}`)
	f.folder(`{"maxTurns":7}`)
	var l Live
	l.SetSources(user, func(k string) string { return f.env[k] })
	f.env["OPENAI_API_KEY"] = "sk-1"
	cfg, _, err := l.Load(f.folders, json.RawMessage(`{"mode":"apply","maxTurns":5}`), json.RawMessage(`{"agentls":{"maxTurns":4}}`))
	if err != nil {
		t.Fatal(err)
	}
	// maxTurns: the editor's latest wins over init, workspace and user file.
	if cfg.Model.BaseURL != "http://mine/v1" || cfg.MaxTurns != 4 || cfg.Mode != "apply" || cfg.APIKey() != "sk-1" {
		t.Fatalf("sources not merged: baseURL=%q maxTurns=%d mode=%q key=%q", cfg.Model.BaseURL, cfg.MaxTurns, cfg.Mode, cfg.APIKey())
	}

	// Broken editor settings: the rest still applies, and why they were
	// left out comes before the load's own errors.
	f.write(user, `{"mode": "nope", "maxTurns": 9}`)
	cfg, _, err = l.Load(f.folders, json.RawMessage(`[]`), nil)
	if err == nil {
		t.Fatal("no error for broken settings and an invalid value")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "editor settings ignored: initializationOptions") || !strings.Contains(lines[1], "mode") {
		t.Fatalf("error lines %q", lines)
	}
	if cfg.MaxTurns != 7 {
		t.Fatalf("maxTurns %d, want the workspace's 7", cfg.MaxTurns)
	}
}

func TestLiveTrust(t *testing.T) {
	f := newFixture(t)
	f.env["XDG_STATE_HOME"] = filepath.Join(f.home, "state")
	f.folder(`{"model":{"baseURL":"http://ws/v1"}}`)
	env := func(k string) string { return f.env[k] }
	var l Live
	l.SetSources("", env)
	cfg, _, _ := l.Load(f.folders, nil, nil)
	un := cfg.Untrusted()
	if cfg.Model.BaseURL != "" || len(un) != 1 {
		t.Fatalf("untrusted workspace applied: baseURL=%q untrusted=%v", cfg.Model.BaseURL, un)
	}
	if !l.Trust().FirstAsk(un[0]) || l.Trust().FirstAsk(un[0]) {
		t.Fatal("each content is asked about once")
	}
	if err := l.Trust().Grant(un[0]); err != nil {
		t.Fatal(err)
	}
	if cfg, _, _ = l.Load(f.folders, nil, nil); cfg.Model.BaseURL != "http://ws/v1" || len(cfg.Untrusted()) != 0 {
		t.Fatalf("granted workspace not applied: baseURL=%q", cfg.Model.BaseURL)
	}
	// Remembered in the state directory the sources' environment names.
	var other Live
	other.SetSources("", env)
	if cfg, _, _ = other.Load(f.folders, nil, nil); cfg.Model.BaseURL != "http://ws/v1" {
		t.Fatalf("trust not remembered across connections: baseURL=%q", cfg.Model.BaseURL)
	}
}

func TestLiveReportsEachProblemOnce(t *testing.T) {
	var l Live
	var told [][2][]string
	l.Tell = func(_ context.Context, warnings, errs []string) { told = append(told, [2][]string{warnings, errs}) }
	ctx := context.Background()
	l.Report(ctx, []string{"w1", "w2"}, errors.New("e1\ne2"))
	l.Report(ctx, []string{"w2", "w1"}, errors.New("e2\ne1"))
	l.Report(ctx, []string{"w1", "w3"}, errors.New("e1\n\ne3"))
	l.Report(ctx, nil, nil)
	want := [][2][]string{
		{{"w1", "w2"}, {"e1", "e2"}},
		{{"w3"}, {"e3"}},
	}
	if len(told) != len(want) {
		t.Fatalf("told %d times: %q", len(told), told)
	}
	for i := range want {
		if !slices.Equal(told[i][0], want[i][0]) || !slices.Equal(told[i][1], want[i][1]) {
			t.Errorf("report %d: %q, want %q", i, told[i], want[i])
		}
	}
	// The same text as a warning and as an error are different problems.
	told = nil
	l.Report(ctx, []string{"e1"}, nil)
	if len(told) != 1 || !slices.Equal(told[0][0], []string{"e1"}) {
		t.Fatalf("warning with an error's text: %q", told)
	}
}

func TestLiveReloadsOneAtATime(t *testing.T) {
	var l Live
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	l.OnLoad(func(c Config) { note("listener " + c.Mode) })
	var told []string
	l.Tell = func(_ context.Context, w, _ []string) { told = append(told, w...) }

	entered := make(chan struct{})
	release := make(chan struct{})
	first := func() (Config, []string, error) {
		close(entered)
		<-release
		c := Defaults()
		c.Mode = "one"
		return c, []string{"w"}, nil
	}
	second := func() (Config, []string, error) {
		note("load two")
		c := Defaults()
		c.Mode = "two"
		return c, []string{"w"}, nil
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		l.Reload(context.Background(), first, func(c Config) { note("use " + c.Mode) })
	}()
	<-entered
	secondStarted := make(chan struct{})
	go func() {
		defer wg.Done()
		close(secondStarted)
		l.Reload(context.Background(), second, func(c Config) { note("use " + c.Mode) })
	}()
	<-secondStarted
	close(release)
	wg.Wait()
	want := []string{"use one", "listener one", "load two", "use two", "listener two"}
	if !slices.Equal(order, want) {
		t.Fatalf("order %q, want %q", order, want)
	}
	if !slices.Equal(told, []string{"w"}) {
		t.Fatalf("told %q, want the warning once", told)
	}
}

func TestLiveClientTimeout(t *testing.T) {
	f := newFixture(t)
	var l Live
	l.SetSources("", func(k string) string { return f.env[k] })
	calls := 0
	// Nothing loaded and a load that sets nothing: the default.
	if d := l.ClientTimeout(func() { calls++ }); d != time.Duration(Defaults().Client.RequestTimeoutSeconds)*time.Second || calls != 1 {
		t.Fatalf("default timeout %v after %d loads", d, calls)
	}
	// Before any load the face's own load runs, and its value counts.
	f.user(`{"client":{"requestTimeoutSeconds":42}}`)
	load := func() { calls++; _, _, _ = l.Load(nil, nil, nil) }
	if d := l.ClientTimeout(load); d != 42*time.Second || calls != 2 {
		t.Fatalf("timeout %v after %d loads, want 42s", d, calls)
	}
	// Afterwards the latest load's value, without loading again.
	if _, _, err := l.Load(nil, json.RawMessage(`{"client":{"requestTimeoutSeconds":7}}`), nil); err != nil {
		t.Fatal(err)
	}
	if d := l.ClientTimeout(load); d != 7*time.Second || calls != 2 {
		t.Fatalf("timeout %v after %d loads, want 7s from the latest load", d, calls)
	}
}
