//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// onTerminal runs cmd with its standard input and error on a new
// pseudo-terminal and answers what agentls asks there, as a user would:
//   - an address on a line of its own (a sign-in page) is opened in the
//     "browser": fetched, following the redirects that end at agentls's
//     loopback listener;
//   - "Answer? [y/N] " (an elicitation) gets "y";
//   - a form field prompt ("name (string, default x): ") gets Enter, which
//     keeps the default.
//
// Everything agentls writes there is copied to log.
func onTerminal(ctx context.Context, cmd *exec.Cmd, log io.Writer) error {
	master, slave, err := openPTY()
	if err != nil {
		return err
	}
	defer master.Close()
	cmd.Stdin, cmd.Stderr = slave, slave
	if err := cmd.Start(); err != nil {
		slave.Close()
		return err
	}
	slave.Close() // the child holds it now: reads end when it exits

	var browsing sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		var line strings.Builder
		for {
			n, err := master.Read(buf)
			if n > 0 {
				_, _ = log.Write(buf[:n])
				for _, c := range string(buf[:n]) {
					if c == '\n' {
						if u := strings.TrimSpace(line.String()); strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
							browsing.Add(1)
							go func() { defer browsing.Done(); browse(ctx, u, log) }()
						}
						line.Reset()
						continue
					}
					line.WriteRune(c)
				}
				switch cur := line.String(); {
				case strings.HasSuffix(cur, "[y/N] "):
					_, _ = master.WriteString("y\n")
					line.Reset()
				case strings.HasSuffix(cur, "): "):
					_, _ = master.WriteString("\n")
					line.Reset()
				}
			}
			if err != nil {
				return // EIO once the child has exited
			}
		}
	}()
	err = cmd.Wait()
	select {
	case <-done:
	case <-time.After(2 * time.Second): // a grandchild holding the terminal
	}
	browsing.Wait()
	return err
}

// browse fetches a sign-in address as the user's browser would.
func browse(ctx context.Context, u string, log io.Writer) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		fmt.Fprintf(log, "mcpconformance: browser: %v\n", err)
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(log, "mcpconformance: browser: %v\n", err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// openPTY opens a pseudo-terminal pair without echo or line editing, so
// answers are read as typed and output arrives as written.
func openPTY() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	fail := func(err error) (*os.File, *os.File, error) { m.Close(); return nil, nil, err }
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		return fail(fmt.Errorf("unlockpt: %w", err))
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		return fail(fmt.Errorf("ptsname: %w", err))
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return fail(fmt.Errorf("open pts: %w", err))
	}
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err != nil {
		s.Close()
		return fail(err)
	}
	tio.Oflag &^= unix.OPOST
	tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	tio.Iflag &^= unix.ICRNL | unix.IXON
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio); err != nil {
		s.Close()
		return fail(err)
	}
	return m, s, nil
}
