//go:build linux

package faces_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/testpty"
	"github.com/agentls/agentls/internal/testwait"
)

// onTerminal runs `agentls run --dir DIR args...` with standard input and
// error on a terminal, typing answer after each question (a line ending
// in "[y/N] "), and returns what the terminal showed.
func (f *cliFace) onTerminal(t *testing.T, answer string, args ...string) (shown string, r cliResult) {
	t.Helper()
	master, slave := testpty.Open(t)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
	defer cancel()
	cmd := f.command(ctx, args...)
	var stdout strings.Builder
	cmd.Stdin, cmd.Stderr, cmd.Stdout = slave, slave, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = slave.Close() // the child holds it; the master reads EOF (EIO) when it exits
	var mu sync.Mutex
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		asked := 0
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			questions := strings.Count(screen.String(), "[y/N] ")
			mu.Unlock()
			for ; asked < questions; asked++ {
				_, _ = master.WriteString(answer + "\n")
			}
			if err != nil {
				return
			}
		}
	}()
	err := cmd.Wait()
	<-read
	mu.Lock()
	shown = screen.String()
	mu.Unlock()
	t.Logf("agentls run on a terminal: %v\nterminal:\n%s\nstdout:\n%s", err, shown, stdout.String())
	return shown, cliResult{ended: ctx.Err() == nil, code: cmd.ProcessState.ExitCode(), stdout: stdout.String()}
}
