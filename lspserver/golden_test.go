package lspserver_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

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
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	clientScript, ok := section(ar, "client")
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
		setSection(ar, "server", got.String())
		setSection(ar, "exit", exit)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, _ := section(ar, "server")
	if got.String() != want {
		t.Errorf("%s: server messages differ (run with -update to accept)\n--- got\n%s--- want\n%s", file, got.String(), want)
	}
	if wantExit, _ := section(ar, "exit"); exit != wantExit {
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

// section returns the data of the archive's file name.
func section(ar *txtar.Archive, name string) (string, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// setSection replaces (or appends) the archive's file name.
func setSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}
