package memo

import (
	"fmt"
	"sync"
	"testing"
)

type stamp struct {
	gen  uint64
	path string
}

func TestServedOnlyForItsStamp(t *testing.T) {
	var m Map[string, stamp, string]
	if _, ok := m.Get("a", stamp{1, "/a"}); ok {
		t.Fatal("empty memo served a value")
	}
	m.Put("a", stamp{1, "/a"}, "answer 1")
	if v, ok := m.Get("a", stamp{1, "/a"}); !ok || v != "answer 1" {
		t.Fatalf("Get same stamp = %q, %v; want answer 1", v, ok)
	}
	for _, s := range []stamp{{2, "/a"}, {1, "/b"}, {0, ""}} {
		if v, ok := m.Get("a", s); ok {
			t.Fatalf("Get with stamp %v served %q, built from {1 /a}", s, v)
		}
	}
	if _, ok := m.Get("b", stamp{1, "/a"}); ok {
		t.Fatal("another key served a's value")
	}
	m.Put("a", stamp{2, "/a"}, "answer 2")
	if v, ok := m.Get("a", stamp{2, "/a"}); !ok || v != "answer 2" {
		t.Fatalf("after rebuild: %q, %v", v, ok)
	}
	if _, ok := m.Get("a", stamp{1, "/a"}); ok {
		t.Fatal("the replaced value is still served for its old stamp")
	}
}

func TestBoundEmptiesWhenFull(t *testing.T) {
	m := Map[int, int, int]{Max: 3}
	for k := range 3 {
		m.Put(k, 0, k*10)
	}
	if n := m.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	m.Put(1, 1, 11) // a key held is replaced, nothing dropped
	if n := m.Len(); n != 3 {
		t.Fatalf("after replacing a held key Len = %d, want 3", n)
	}
	m.Put(3, 0, 30) // full: emptied, then kept
	if n := m.Len(); n != 1 {
		t.Fatalf("after overflow Len = %d, want 1", n)
	}
	if v, ok := m.Get(3, 0); !ok || v != 30 {
		t.Fatalf("the value put on overflow: %d, %v", v, ok)
	}
	if _, ok := m.Get(0, 0); ok {
		t.Fatal("a value from before the overflow is still served")
	}
}

func TestZeroMaxKeepsDefault(t *testing.T) {
	var m Map[int, int, int]
	for k := range DefaultMax {
		m.Put(k, 0, k)
	}
	if n := m.Len(); n != DefaultMax {
		t.Fatalf("Len = %d, want %d", n, DefaultMax)
	}
	m.Put(DefaultMax, 0, 0)
	if n := m.Len(); n != 1 {
		t.Fatalf("Len after overflow = %d, want 1", n)
	}
}

func TestConcurrent(t *testing.T) {
	m := Map[string, int, string]{Max: 16}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				k := fmt.Sprint(i % 20)
				m.Put(k, g, k)
				if v, ok := m.Get(k, g); ok && v != k {
					t.Errorf("Get(%s) = %s", k, v)
				}
			}
		})
	}
	wg.Wait()
	if n := m.Len(); n > 16 {
		t.Fatalf("Len = %d beyond Max 16", n)
	}
}
