package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

//go:embed descriptions/read_file.md
var readFileDescription string

// Output bounds of read_file.
const (
	readDefaultLimit = 2000     // lines per call
	readMaxBytes     = 50 << 10 // bytes of output per call
	readMaxLineChars = 2000     // longer lines are cut
)

type readFileParams struct {
	Path   string `json:"path" jsonschema:"file path"`
	Offset *int   `json:"offset,omitempty" jsonschema:"first line, 1-based"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"max lines (default 2000)"`
}

// ReadFile is the read_file tool.
func ReadFile() Tool {
	return New("read_file", readFileDescription, true, readFile)
}

func readFile(ctx context.Context, env *Env, p readFileParams) (Result, error) {
	offset, limit := 1, readDefaultLimit
	data := WantsData(ctx)
	if data {
		limit = int(^uint(0) >> 1) // a program gets the whole file by default
	}
	if p.Offset != nil && *p.Offset > 1 {
		offset = *p.Offset
	}
	if p.Offset != nil && *p.Offset < 0 {
		return Errorf("offset must be a 1-based line number, got %d", *p.Offset), nil
	}
	if p.Limit != nil && *p.Limit > 0 {
		limit = *p.Limit
	}
	if res, ok := env.readSkillFile(p.Path, offset, limit); ok {
		return res, nil
	}
	abs, err := env.resolve(p.Path)
	if err != nil {
		return Errorf("%v", err), nil
	}
	path := env.display(abs)
	if env.isSecret(abs) {
		return secretRefusal(path), nil
	}
	content, note, record, res, ok := env.readForModel(abs, path)
	if !ok {
		return res, nil
	}
	if r, masked := gitRedacted(abs, content); masked {
		content, note = r, joinNotes(note, redactedNote)
	}
	if data {
		// Not recorded in the ledger: the model has not seen the text,
		// so it must read the file itself before editing it.
		return readData(path, content, offset, limit), nil
	}
	res = formatRead(path, content, offset, limit, note)
	if !res.IsError {
		record()
	}
	return res, nil
}

// readForModel returns the text of abs as the run sees it (its staged text
// first), and record, which notes the read in the ledger once the model is
// shown the text: the hash of the whole current file, whatever part of it
// is shown.
func (env *Env) readForModel(abs, path string) (text, note string, record func(), res Result, ok bool) {
	record = func() {}
	if err := env.beforeRead(abs); err != nil {
		return "", "", record, env.readError(path, err), false
	}
	snap, err := env.View.Read(abs)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", record, env.readError(path, err), false
	}
	if st, staged := env.Changes.Get(abs); staged {
		if !stagedHolds(st, exists, snap.Hash) {
			note = env.reconcile(st, exists, snap, true)
			st, staged = env.Changes.Get(abs)
		}
		if staged {
			if exists {
				record = func() { env.Ledger.Record(abs, snap.Hash, snap.Text) }
			}
			if st.Text != snap.Text {
				note = joinNotes(note, "this shows your staged edits, which are not on disk yet")
			}
			return st.Text, note, record, Result{}, true
		}
	}
	if pn, ok := env.pendingNewAt(abs, exists, snap.Text); ok {
		record = func() { env.Ledger.Record(abs, hashText(pn.Text), pn.Text) }
		return pn.Text, joinNotes(note, pendingNewNote(path, pn)), record, Result{}, true
	}
	if !exists {
		if note != "" {
			return "", "", record, Errorf("%s\n%s", note, env.readError(path, err).Text), false
		}
		return "", "", record, env.readError(path, err), false
	}
	record = func() { env.Ledger.Record(abs, snap.Hash, snap.Text) }
	return snap.Text, note, record, Result{}, true
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// formatRead numbers the lines offset..offset+limit-1 of content (cat -n
// style), within the byte budget, and says what was left out.
func formatRead(path, content string, offset, limit int, note string) Result {
	if content == "" {
		return Result{Text: joinNotes(note, fmt.Sprintf("(%s is empty)", path)), Summary: "read " + path + " (empty)"}
	}
	total := strings.Count(content, "\n") + 1
	if strings.HasSuffix(content, "\n") {
		total--
	}
	if offset > total {
		return Errorf("offset %d is past the end of %s, which has %d lines", offset, path, total)
	}
	var b strings.Builder
	if note != "" {
		b.WriteString("[" + note + "]\n")
	}
	rest := content
	for range offset - 1 { // skip to the first requested line
		i := strings.IndexByte(rest, '\n')
		rest = rest[i+1:]
	}
	last := offset - 1
	cut := 0
	for last < total && last-offset+1 < limit && b.Len() < readMaxBytes {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if len(line) > readMaxLineChars {
			end := readMaxLineChars
			for end > 0 && !runeStart(line[end]) {
				end--
			}
			line = line[:end] + fmt.Sprintf("… [line cut: %d more chars]", len(line)-end)
			cut++
		}
		last++
		fmt.Fprintf(&b, "%6d\t%s\n", last, line)
	}
	if offset > 1 || last < total {
		fmt.Fprintf(&b, "[%s has %d lines; showing %d-%d", path, total, offset, last)
		if last < total {
			fmt.Fprintf(&b, "; use offset=%d to continue", last+1)
		}
		b.WriteString("]\n")
	}
	if cut > 0 {
		fmt.Fprintf(&b, "[%d long line(s) cut at %d chars; use grep to find text in them]\n", cut, readMaxLineChars)
	}
	if strings.Contains(content, "\r\n") {
		b.WriteString("[line endings: CRLF; edits keep them]\n")
	}
	return Result{Text: b.String(), Summary: fmt.Sprintf("read %s (lines %d-%d of %d)", path, offset, last, total)}
}

// readData is read_file's answer to a program: lines offset..offset+limit-1
// as one string, plus the file's line count, within DataMaxReadBytes.
func readData(path, content string, offset, limit int) Result {
	total := strings.Count(content, "\n")
	if content != "" && !strings.HasSuffix(content, "\n") {
		total++
	}
	if offset > total && !(offset == 1 && total == 0) {
		return Errorf("offset %d is past the end of %s, which has %d lines", offset, path, total)
	}
	part := text.Lines(content, offset-1, limit)
	if len(part) > DataMaxReadBytes {
		return Errorf("%s: %d bytes asked, more than the %d a program may read at once; read it in parts with offset and limit", path, len(part), DataMaxReadBytes)
	}
	return Result{
		Text:    fmt.Sprintf("read %s (%d lines)", path, total),
		Summary: fmt.Sprintf("read %s (%d lines)", path, total),
		Data:    ReadData{Path: path, Text: part, Lines: total},
	}
}

// ReadData is read_file's answer to a program.
type ReadData struct {
	Path  string `json:"path"`
	Text  string `json:"text"`  // the lines asked for, line breaks kept
	Lines int    `json:"lines"` // lines in the whole file
}
