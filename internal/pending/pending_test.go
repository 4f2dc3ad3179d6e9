package pending

import (
	"context"
	"slices"
	"sync"
	"testing"
)

func TestTakeSortsAndEmpties(t *testing.T) {
	var s Set
	for _, k := range []string{"/b", "/a", "/c", "/a"} {
		s.Add(k)
	}
	if n := s.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3 (a repeated key counts once)", n)
	}
	if got := s.Take(); !slices.Equal(got, []string{"/a", "/b", "/c"}) {
		t.Fatalf("Take = %q, want sorted /a /b /c", got)
	}
	if got := s.Take(); len(got) != 0 {
		t.Fatalf("second Take = %q, want empty", got)
	}
}

func TestRemove(t *testing.T) {
	var s Set
	s.Add("/a")
	s.Add("/b")
	s.Remove("/a")
	s.Remove("/never")
	if got := s.Take(); !slices.Equal(got, []string{"/b"}) {
		t.Fatalf("Take = %q, want /b", got)
	}
}

func TestAddNeverBlocks(t *testing.T) {
	var s Set // nobody runs it: Add must still return
	for i := range 1000 {
		s.Add(string(rune('a' + i%26)))
	}
	if n := s.Len(); n != 26 {
		t.Fatalf("Len = %d, want 26", n)
	}
}

// TestRunCoalesces: keys added while a round runs come in one next round,
// sorted, and a round never sees a key twice.
func TestRunCoalesces(t *testing.T) {
	var s Set
	ctx, cancel := context.WithCancel(context.Background())
	entered := make(chan struct{})
	release := make(chan struct{})
	rounds := make(chan []string, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		first := true
		s.Run(ctx, func(_ context.Context, keys []string) {
			rounds <- keys
			if first {
				first = false
				close(entered)
				<-release
			}
		})
	}()
	s.Add("/first")
	<-entered
	for _, k := range []string{"/z", "/m", "/z", "/a"} {
		s.Add(k)
	}
	close(release)
	if got := <-rounds; !slices.Equal(got, []string{"/first"}) {
		t.Fatalf("round 1 = %q", got)
	}
	if got := <-rounds; !slices.Equal(got, []string{"/a", "/m", "/z"}) {
		t.Fatalf("round 2 = %q, want /a /m /z in one round", got)
	}
	cancel()
	<-done
	select {
	case r := <-rounds:
		t.Fatalf("extra round %q", r)
	default:
	}
}

// TestRunDeliversEveryKey: with producers racing the consumer, every key
// added reaches some round (run with -race).
func TestRunDeliversEveryKey(t *testing.T) {
	var s Set
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	seen := map[string]bool{}
	all := make(chan struct{})
	const n = 200
	go s.Run(ctx, func(_ context.Context, keys []string) {
		mu.Lock()
		defer mu.Unlock()
		if !slices.IsSorted(keys) {
			t.Errorf("round not sorted: %q", keys)
		}
		for _, k := range keys {
			seen[k] = true
		}
		if len(seen) == n {
			close(all)
		}
	})
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Go(func() {
			for i := p; i < n; i += 4 {
				s.Add(string(rune(0x4e00 + i)))
			}
		})
	}
	wg.Wait()
	<-all
}

// TestRunEmptyWakeup: a wake-up whose keys were removed meanwhile runs no
// round.
func TestRunEmptyWakeup(t *testing.T) {
	var s Set
	s.Add("/gone")
	s.Remove("/gone")
	ctx, cancel := context.WithCancel(context.Background())
	rounds := make(chan []string, 1)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, func(_ context.Context, k []string) { rounds <- k }) }()
	s.Add("/next")
	if got := <-rounds; !slices.Equal(got, []string{"/next"}) {
		t.Fatalf("first round = %q, want /next only", got)
	}
	cancel()
	<-done
}
