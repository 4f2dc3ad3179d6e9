//go:build linux

package faces_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/internal/testwait"
)

// openPTY opens a pseudo-terminal pair in raw mode (no echo, no CR/LF
// translation), so what the CLI writes arrives as written (as
// cmd/agentls's tty tests do).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pts: %v", err)
	}
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	tio.Oflag &^= unix.OPOST
	tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	tio.Cflag &^= unix.CSIZE | unix.PARENB
	tio.Cflag |= unix.CS8
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(); _ = s.Close() })
	return m, s
}

// onTerminal runs `agentls run --dir DIR args...` with standard input and
// error on a terminal, typing answer after each question (a line ending
// in "[y/N] "), and returns what the terminal showed.
func (f *cliFace) onTerminal(t *testing.T, answer string, args ...string) (shown string, r cliResult) {
	t.Helper()
	master, slave := openPTY(t)
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
