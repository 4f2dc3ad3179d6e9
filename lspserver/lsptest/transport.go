package lsptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"

	"github.com/agentls/agentls/lspserver"
)

// teardownTimeout bounds how long cleanup waits for a server that ignores
// its closed input, so a broken server fails the test instead of hanging it.
const teardownTimeout = 30 * time.Second

// NewInProcess starts lspserver.Serve on io.Pipe pairs and returns a
// connected Client. Cleanup closes the server's input and waits for Serve to
// return. Wait returns Serve's exit code.
func NewInProcess(tb testing.TB, opts lspserver.Options) *Client {
	tb.Helper()
	return NewInProcessServer(tb, lspserver.New(opts))
}

// NewInProcessServer is NewInProcess for a Server the test built itself
// (to reach Server methods such as View or Settings).
func NewInProcessServer(tb testing.TB, srv *lspserver.Server) *Client {
	tb.Helper()
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan struct{})
	var code int
	go func() {
		code = srv.Serve(ctx, inR, outW)
		close(exited)
		// The process would exit here: end the output so the client sees EOF.
		_ = outW.Close()
	}()
	c := New(outR, inW)
	c.exitCode = func(ctx context.Context) (int, error) {
		select {
		case <-exited:
			return code, nil
		case <-ctx.Done():
			return 0, fmt.Errorf("server did not exit: %w", ctx.Err())
		}
	}
	tb.Cleanup(func() {
		_ = inW.Close()
		cancel()
		select {
		case <-exited:
		case <-time.After(teardownTimeout):
			tb.Errorf("lsptest: in-process server did not stop within %v", teardownTimeout)
		}
		_ = inR.Close()
		_ = outR.Close()
		<-c.done
		c.waitHandlers()
	})
	return c
}

// Binary is a running agentls process.
type Binary struct {
	*Client
	Cmd    *exec.Cmd
	stderr *testwait.Buffer
}

// Stderr returns what the process wrote to stderr so far (its logs).
func (b *Binary) Stderr() string { return b.stderr.String() }

// StartBinary starts the agentls binary at path with args (e.g. "serve",
// "--log-level", "debug") and returns a connected Client. Cleanup closes its
// input, waits for it to exit and kills it if it does not.
func StartBinary(tb testing.TB, path string, args ...string) *Binary {
	tb.Helper()
	cmd := exec.Command(path, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatalf("lsptest: stdin pipe: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatalf("lsptest: stdout pipe: %v", err)
	}
	stderr := &testwait.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("lsptest: start %s: %v", path, err)
	}
	b := &Binary{Client: New(stdout, stdin), Cmd: cmd, stderr: stderr}
	waited := make(chan struct{})
	var waitErr error
	go func() {
		<-b.done // drain stdout fully before Wait closes the pipe
		waitErr = cmd.Wait()
		close(waited)
	}()
	b.exitCode = func(ctx context.Context) (int, error) {
		select {
		case <-waited:
		case <-ctx.Done():
			return 0, fmt.Errorf("agentls did not exit: %w\nstderr:\n%s", ctx.Err(), stderr.String())
		}
		var ee *exec.ExitError
		if waitErr != nil && !errors.As(waitErr, &ee) {
			return 0, fmt.Errorf("wait agentls: %w", waitErr)
		}
		return cmd.ProcessState.ExitCode(), nil
	}
	tb.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-waited:
		case <-time.After(teardownTimeout):
			_ = cmd.Process.Kill()
			<-waited
			tb.Errorf("lsptest: agentls did not exit within %v of its input closing\nstderr:\n%s", teardownTimeout, stderr.String())
		}
		b.waitHandlers()
		if tb.Failed() {
			tb.Logf("agentls stderr:\n%s", stderr.String())
		}
	})
	return b
}

// build caches the agentls binary per test binary: building takes seconds,
// so every test shares one.
var build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// BuildBinary builds cmd/agentls once per test binary and returns its path.
// Call RunMain from TestMain to remove it afterwards.
func BuildBinary(tb testing.TB) string {
	tb.Helper()
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "agentls-lsptest-")
		if build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "agentls")
		cmd := exec.Command("go", "build", "-o", build.path, "github.com/agentls/agentls/cmd/agentls")
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build agentls: %w\n%s", err, out)
		}
	})
	if build.err != nil {
		tb.Fatalf("lsptest: %v", build.err)
	}
	return build.path
}

// RunMain runs the tests and removes the binary BuildBinary made. Use it as
// `func TestMain(m *testing.M) { os.Exit(lsptest.RunMain(m)) }`.
func RunMain(m *testing.M) int {
	code := m.Run()
	if build.dir != "" {
		_ = os.RemoveAll(build.dir)
	}
	return code
}
