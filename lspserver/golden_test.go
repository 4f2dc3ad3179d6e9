package lspserver_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/golden/*.txtar")

// TestGolden replays the client frames of each testdata/golden/*.txtar
// against an in-process server and compares every server message, in order,
// and the exit code with the file. The "client" section has one frame body
// per line, sent verbatim (it need not be JSON); "#" lines are comments;
// "$ROOT" is replaced by a fresh workspace folder's URI path. After each
// frame that expects an answer (anything but a well-formed notification or
// client response) the runner waits for one response before going on, so
// the transcript is deterministic. After the last line the input is closed.
// Run with -update to rewrite the "server" and "exit" sections.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runGolden(t, file)
		})
	}
}

func runGolden(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseTxtar(data)
	clientScript, ok := ar.get("client")
	if !ok {
		t.Fatalf("%s: no client section", file)
	}
	root := t.TempDir()
	rootURI := strings.TrimPrefix(string(uri.File(root)), "file://")
	if err := os.WriteFile(filepath.Join(root, "disk.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := lsptest.Context(t)
	c := lsptest.NewInProcess(t, lspserver.Options{Version: "golden", NoWatcher: true})
	var got bytes.Buffer
	record := func(m lsptest.Message) {
		line := strings.ReplaceAll(string(m.Raw), rootURI, "$ROOT")
		line = strings.ReplaceAll(line, root, "$ROOT")
		got.WriteString(line + "\n")
	}
	for i, line := range strings.Split(clientScript, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		body := []byte(strings.ReplaceAll(line, "$ROOT", rootURI))
		if err := c.WriteFrame(body); err != nil {
			t.Fatalf("line %d: write: %v", i+1, err)
		}
		if !expectsAnswer(body) {
			continue
		}
		m, err := c.Await(ctx, "", func(m lsptest.Message) bool { return m.IsResponse() })
		if err != nil {
			t.Fatalf("line %d %s: no response: %v", i+1, line, err)
		}
		record(m)
	}
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	code, err := c.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	testwait.Recv(t, c.Done(), "the server output to end")
	for {
		m, err := c.Await(ctx, "", nil) // anything else the server sent
		if err != nil {
			break
		}
		record(m)
	}

	exit := strconv.Itoa(code) + "\n"
	if *update {
		ar.set("server", got.String())
		ar.set("exit", exit)
		if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, _ := ar.get("server")
	if got.String() != want {
		t.Errorf("%s: server messages differ (run with -update to accept)\n--- got\n%s--- want\n%s", file, got.String(), want)
	}
	if wantExit, _ := ar.get("exit"); exit != wantExit {
		t.Errorf("%s: exit code %s, want %s", file, strings.TrimSpace(exit), strings.TrimSpace(wantExit))
	}
}

// expectsAnswer reports whether the server must answer body: everything but
// a well-formed notification or a well-formed response from the client.
func expectsAnswer(body []byte) bool {
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil || string(env["jsonrpc"]) != `"2.0"` {
		return true
	}
	id, hasID := env["id"]
	hasID = hasID && string(id) != "null"
	method, hasMethod := env["method"]
	if hasMethod {
		var s string
		if json.Unmarshal(method, &s) != nil {
			return true
		}
		return hasID
	}
	_, hasResult := env["result"]
	_, hasError := env["error"]
	return !(hasID && (hasResult || hasError))
}

// txtar is a minimal reader/writer of the txtar format (comment, then
// "-- name --" sections), enough for golden files.
type txtar struct {
	comment string
	names   []string
	data    map[string]string
}

func parseTxtar(b []byte) *txtar {
	ar := &txtar{data: map[string]string{}}
	cur := ""
	var buf strings.Builder
	flush := func() {
		if cur == "" {
			ar.comment = buf.String()
		} else {
			ar.names = append(ar.names, cur)
			ar.data[cur] = buf.String()
		}
		buf.Reset()
	}
	for _, line := range strings.SplitAfter(string(b), "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			cur = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			continue
		}
		buf.WriteString(line)
	}
	flush()
	return ar
}

func (ar *txtar) get(name string) (string, bool) {
	v, ok := ar.data[name]
	return v, ok
}

func (ar *txtar) set(name, v string) {
	if _, ok := ar.data[name]; !ok {
		ar.names = append(ar.names, name)
	}
	ar.data[name] = v
}

func (ar *txtar) format() []byte {
	var b bytes.Buffer
	b.WriteString(ar.comment)
	for _, n := range ar.names {
		fmt.Fprintf(&b, "-- %s --\n", n)
		b.WriteString(ar.data[n])
	}
	return b.Bytes()
}
