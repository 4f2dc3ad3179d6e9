package script

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// BenchmarkScriptTrivial is the fixed price of a script call: starting
// the interpreter process (this test binary), running print(1), reaping it.
func BenchmarkScriptTrivial(b *testing.B) {
	f := newFixture(b, nil, Limits{})
	for b.Loop() {
		if res := f.runB(b, "print(1)"); res != "1\n" {
			b.Fatal(res)
		}
	}
}

// BenchmarkScriptOverFiles: a program that reads 300 files one by one
// (301 inner calls) and counts a word, against the same count done with
// one grep from inside the program.
func BenchmarkScriptOverFiles(b *testing.B) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%d/f%03d.go", i%10, i)] = strings.Repeat("package p // TODO\n", 30)
	}
	f := newFixture(b, files, Limits{})
	b.Run("read-each", func(b *testing.B) {
		for b.Loop() {
			res := f.runB(b, "n = 0\nfor p in glob('**/*.go'):\n  n += read_file(p)['text'].count('TODO')\nn")
			if res != "9000" {
				b.Fatal(res)
			}
		}
	})
	b.Run("one-grep", func(b *testing.B) {
		for b.Loop() {
			if res := f.runB(b, "len(grep('TODO'))"); res != "9000" {
				b.Fatal(res)
			}
		}
	})
}

// BenchmarkMemoryBombStall: how long goroutines of the server process are
// held up while a program tries to build a 1.6 GB list (in-process
// Starlark stalled every goroutine for 9.4 s on this machine). Reports the
// longest gap a 1 ms ticker saw.
func BenchmarkMemoryBombStall(b *testing.B) {
	f := newFixture(b, nil, Limits{})
	for b.Loop() {
		stop := make(chan struct{})
		gap := make(chan time.Duration)
		go func() {
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			last, worst := time.Now(), time.Duration(0)
			for {
				select {
				case now := <-t.C:
					worst = max(worst, now.Sub(last))
					last = now
				case <-stop:
					gap <- worst
					return
				}
			}
		}()
		res := f.runB(b, "x = [None] * 100000000")
		close(stop)
		worst := <-gap
		if !strings.Contains(res, "memory") {
			b.Fatal(res)
		}
		b.ReportMetric(float64(worst.Microseconds())/1000, "max-stall-ms")
	}
	runtime.GC()
}

func (f *fixture) runB(b *testing.B, code string) string {
	b.Helper()
	return f.run(b, code).Text
}
