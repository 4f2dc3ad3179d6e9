package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/childproc"
)

// childProc is a running child and our ends of its pipes.
type childProc struct {
	g      *childproc.Group
	toW    *os.File // parent → child
	fromR  *os.File // child → parent
	enc    *json.Encoder
	dec    *json.Decoder
	stderr *capped
	stop   func() bool // unregisters the stop on ctx's end
	once   sync.Once
}

var errOutOfMemory = errors.New("out of memory")

// startChild starts this binary as the interpreter, through
// internal/childproc like every child of agentls (own process group,
// parent death signal, reaped). ctx ending stops it.
func startChild(ctx context.Context) (*childProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the agentls binary: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{childEnv + "=" + childMagic, "GOMAXPROCS=1", "GOTRACEBACK=none"}
	cmd.Dir = os.TempDir()
	return startProc(ctx, cmd)
}

// startProc starts cmd with the parent → child pipe on its fd 3 and the
// child → parent pipe on its fd 4.
func startProc(ctx context.Context, cmd *exec.Cmd) (*childProc, error) {
	toR, toW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		toR.Close()
		toW.Close()
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{toR, fromW}
	c := &childProc{toW: toW, fromR: fromR, stderr: &capped{max: 8 << 10}}
	cmd.Stderr = c.stderr
	c.g, err = childproc.StartCmd(cmd)
	toR.Close()
	fromW.Close()
	if err != nil {
		toW.Close()
		fromR.Close()
		return nil, fmt.Errorf("start the interpreter: %w", err)
	}
	c.enc = json.NewEncoder(toW)
	c.dec = json.NewDecoder(fromR)
	// A program past its wall clock (or a cancelled call) has nothing to
	// save: its group goes at once.
	c.stop = context.AfterFunc(ctx, c.g.Kill)
	return c, nil
}

// exitReason explains a broken pipe by how the child ended.
func (c *childProc) exitReason(ioErr error) error {
	select {
	case <-c.g.Exited():
	case <-time.After(5 * time.Second):
		c.g.Kill()
	}
	msg := c.stderr.String()
	if outOfMemory(msg) {
		return errOutOfMemory
	}
	if werr := c.g.Err(); werr != nil {
		if m := strings.TrimSpace(msg); m != "" {
			return fmt.Errorf("%v: %s", werr, firstLines(m, 3))
		}
		return werr
	}
	if errors.Is(ioErr, io.EOF) {
		return errors.New("the interpreter closed its pipe")
	}
	return ioErr
}

// outOfMemory reports whether the child's last words say an allocation
// failed against its memory limit: the Go runtime's, or (in a binary
// built with -race) ThreadSanitizer's.
func outOfMemory(stderr string) bool {
	for _, m := range []string{"out of memory", "cannot allocate memory", "failed to allocate", "address space collisions"} {
		if strings.Contains(stderr, m) {
			return true
		}
	}
	return false
}

// close ends the child: it exits by itself once its input closes; if it
// has not within 2 s, its group is stopped (SIGTERM, then SIGKILL). It
// returns once the child is reaped, and closes our pipes.
func (c *childProc) close() {
	c.once.Do(func() {
		c.toW.Close()
		select {
		case <-c.g.Exited():
		case <-time.After(2 * time.Second):
		}
		c.g.Stop()
		c.stop()
		c.fromR.Close()
	})
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " / ")
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
