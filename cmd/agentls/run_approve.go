package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agentls/agentls/tools"
)

// termApprover asks on the terminal before a tool does something the user
// must allow. Without a terminal it cannot ask: it allows when the user
// passed --allow-commands and denies otherwise.
type termApprover struct {
	out   io.Writer
	in    *bufio.Reader
	tty   bool
	allow bool

	mu      sync.Mutex
	pending chan lineResult // a read still waiting for the user
	always  map[string]bool
}

type lineResult struct {
	line string
	err  error
}

func newTermApprover(stdin io.Reader, out io.Writer, allow bool) *termApprover {
	a := &termApprover{out: out, allow: allow, tty: isTerminal(stdin), always: map[string]bool{}}
	if stdin != nil {
		a.in = bufio.NewReader(stdin)
	}
	return a
}

// isTerminal reports whether s (stdin, stderr) is a terminal.
func isTerminal(s any) bool {
	for {
		u, ok := s.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		s = u.Unwrap()
	}
	f, ok := s.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && isTTY(f.Fd())
}

// Approve implements tools.Approver.
func (a *termApprover) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	if !a.tty || a.in == nil {
		if a.allow {
			return tools.AllowOnce, nil
		}
		return tools.Deny, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.always[req.Tool] {
		return tools.AllowAlways, nil
	}
	fmt.Fprintf(a.out, "\nagentls: the agent wants to use %s:\n  %s\nAllow? [y] once, [a] always, [N] no: ", req.Tool, req.Summary)
	if a.pending == nil {
		// One reader at a time: if ctx ends while the user is still
		// thinking, the next question reuses this read.
		ch := make(chan lineResult, 1)
		go func() {
			line, err := a.in.ReadString('\n')
			ch <- lineResult{line, err}
		}()
		a.pending = ch
	}
	select {
	case <-ctx.Done():
		return tools.Deny, ctx.Err()
	case r := <-a.pending:
		a.pending = nil
		switch strings.ToLower(strings.TrimSpace(r.line)) {
		case "y", "yes":
			return tools.AllowOnce, nil
		case "a", "always":
			a.always[req.Tool] = true
			return tools.AllowAlways, nil
		}
		return tools.Deny, nil
	}
}
