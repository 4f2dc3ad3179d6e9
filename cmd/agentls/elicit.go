package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agentls/agentls/tools/mcp"
)

// cliElicit answers MCP servers' elicitation/create on the command line:
// on a terminal it prints the request on stderr and reads the answers from
// stdin (an empty answer leaves the field to the schema's default); without
// a terminal it returns nil, and the manager declines every request.
func cliElicit(stdin io.Reader, stderr io.Writer) func(context.Context, mcp.Elicitation) (mcp.ElicitResult, error) {
	f, ok := stdin.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	p := &prompter{in: bufio.NewReader(f), out: stderr}
	return p.elicit
}

// prompter asks one elicitation at a time.
type prompter struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
}

// readLine reads a line, giving up (the read goes on in the background
// until the user presses Enter) when ctx ends.
func (p *prompter) readLine(ctx context.Context) (string, error) {
	ch := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		s, err := p.in.ReadString('\n')
		if err != nil && s == "" {
			errc <- err
			return
		}
		ch <- strings.TrimSpace(s)
	}()
	select {
	case s := <-ch:
		return s, nil
	case err := <-errc:
		return "", err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (p *prompter) elicit(ctx context.Context, e mcp.Elicitation) (mcp.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, "\nMCP server %q asks: %s\n", e.Server, e.Message)
	if e.Mode == "url" {
		fmt.Fprintf(p.out, "Open this address to continue: %s\n", e.URL)
	}
	fmt.Fprint(p.out, "Answer? [y/N] ")
	yes, err := p.readLine(ctx)
	if err != nil {
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	}
	if !strings.EqualFold(yes, "y") && !strings.EqualFold(yes, "yes") {
		return mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
	}
	if e.Mode == "url" {
		return mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
	}
	var sc struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
			Default     any      `json:"default"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(e.Schema, &sc)
	names := make([]string, 0, len(sc.Properties))
	for n := range sc.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	content := map[string]any{}
	for _, n := range names {
		prop := sc.Properties[n]
		label := n
		if prop.Title != "" {
			label = prop.Title
		}
		hint := prop.Type
		if len(prop.Enum) > 0 {
			hint = strings.Join(prop.Enum, "|")
		}
		if prop.Default != nil {
			hint += fmt.Sprintf(", default %v", prop.Default)
		}
		for {
			fmt.Fprintf(p.out, "%s (%s): ", label, hint)
			line, err := p.readLine(ctx)
			if err != nil {
				return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
			}
			if line == "" {
				break // the default, if any, is applied by the manager
			}
			v, err := parseAnswer(line, prop.Type, prop.Enum)
			if err != nil {
				fmt.Fprintln(p.out, err)
				continue
			}
			content[n] = v
			break
		}
	}
	return mcp.ElicitResult{Action: mcp.ElicitAccept, Content: content}, nil
}

// parseAnswer converts a typed answer to the schema's type.
func parseAnswer(s, typ string, enum []string) (any, error) {
	if len(enum) > 0 && !slices.Contains(enum, s) {
		return nil, fmt.Errorf("choose one of %s", strings.Join(enum, ", "))
	}
	switch typ {
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("answer yes or no")
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("enter a whole number")
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("enter a number")
		}
		return f, nil
	}
	return s, nil
}
