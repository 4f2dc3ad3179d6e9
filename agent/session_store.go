package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/internal/workspace"
)

// Sessions are saved per workspace, one file per session:
//
//	$XDG_STATE_HOME/agentls/sessions/<workspace key>/<session id>.json
//
// (~/.local/state when XDG_STATE_HOME is unset). The workspace key is a
// hash of the workspace's first folder. Files are written atomically
// (temporary file, fsync, rename) with owner-only permissions (0600 in
// 0700 directories) and hold the conversation, review notes, and the
// session's pending proposals; API keys are redacted from everything.
//
// Two servers on the same workspace: each session is its own file, so
// sessions started in different servers never overwrite each other, and
// a server lists each restored proposal once (proposals are keyed by
// session, run and file). No server rewrites a session it did not change;
// one that saves a session the other also holds merges the proposals with
// the file first (lspserver's mergeSaved), and the conversation keeps the
// later write.
//
// Bounds: at most MaxSessions files and MaxBytes in total per workspace,
// the least recently updated dropped first; one session's file at most
// maxSessionFileBytes (its conversation is shortened, then dropped, to
// fit, then the remembered file texts). A file that does not parse, or has another version, is logged and
// set aside (renamed to .bad), never fatal.

// sessionFileVersion is the version of the session file format.
const sessionFileVersion = 1

// Session store bounds (defaults of SessionStore).
const (
	DefaultMaxSessions  = 50
	DefaultMaxBytes     = 64 << 20
	maxSessionFileBytes = 8 << 20
	// MaxSessionLoadBytes bounds a session file read back: Save never
	// writes more than 8 MiB, so a larger file is damaged or planted. It
	// is set aside unread (a 150 MB file took 5 s and 162 MB of memory to
	// parse at every start) and the other sessions load as usual.
	MaxSessionLoadBytes = 32 << 20
)

// SavedProposal is one pending proposal of a session, saved so that it
// survives a restart: the document text it was computed against and the
// proposed text. On restore it is rebased onto the file as it is then.
type SavedProposal struct {
	RunID    string `json:"runId"`
	Path     string `json:"path"`
	Base     string `json:"base"`
	Proposed string `json:"proposed"`
	Created  bool   `json:"created,omitempty"`
}

// Restorable checks a proposal read back from a session file against every
// write rule before it may be shown, accepted or created: its path must
// pass view.WritablePath (inside a workspace folder once symlinks are
// resolved, never .git in any case, no "..") and be that resolved path
// already, as every path a run stages is. A session file is data on disk;
// a tampered one naming <ws>/.git/hooks/pre-commit, .GIT/config or a path
// through a symlink leading out is refused here, by every front-end that
// restores sessions.
func (p SavedProposal) Restorable(view *workspace.View) error {
	real, err := view.WritablePath(p.Path)
	if err != nil {
		return err
	}
	if real != p.Path {
		return fmt.Errorf("%q is not the resolved path of a file in the workspace (it resolves to %s)", p.Path, real)
	}
	return nil
}

// sessionFile is the saved form of a session.
type sessionFile struct {
	Version int    `json:"version"`
	ID      string `json:"id"`
	sessionState
	Proposals []SavedProposal `json:"proposals,omitempty"`
}

// SessionStore saves and restores the sessions of one workspace.
type SessionStore struct {
	dir         string
	folder      string
	log         *slog.Logger
	readOnly    bool // ReadSessions: never create, rename or remove anything
	MaxSessions int
	MaxBytes    int64
}

// DefaultStateDir is $XDG_STATE_HOME/agentls, falling back to
// $HOME/.local/state/agentls, in the environment env (nil: os.Getenv).
func DefaultStateDir(env func(string) string) (string, error) {
	if d := statedir.Dir(env); d != "" {
		return d, nil
	}
	return "", errors.New("no state directory (set XDG_STATE_HOME or HOME)")
}

// NoState as a face's state directory setting keeps nothing on disk:
// sessions stay in memory, and no answer, plan or revert snapshot is
// written.
const NoState = "-"

// StateDir resolves a face's state directory setting: NoState is none
// (""), "" is DefaultStateDir in env, anything else is that directory.
// Every face and every file kept under the state directory (sessions,
// reverts, answers, plans) resolves it here, so they never disagree on
// where state lives. The error says why there is no default; the
// directory is "" then.
func StateDir(setting string, env func(string) string) (string, error) {
	switch setting {
	case NoState:
		return "", nil
	case "":
		return DefaultStateDir(env)
	}
	return setting, nil
}

// OpenSessionStore opens (creating it) the session directory of the
// workspace whose first folder is folder, under stateDir. It fails when
// the directory cannot be created or written: the caller then runs
// without persistence.
func OpenSessionStore(stateDir, folder string, log *slog.Logger) (*SessionStore, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := sessionDir(stateDir, folder)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session dir: %w", err)
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return nil, fmt.Errorf("session dir %s is not writable: %w", dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	marker := filepath.Join(dir, workspaceMarker)
	if b, err := os.ReadFile(marker); err != nil || string(b) != folder {
		if err := statedir.WriteFile(marker, []byte(folder)); err != nil {
			log.Warn("cannot record the session directory's workspace", "dir", dir, "err", err)
		}
	}
	return &SessionStore{dir: dir, log: log, MaxSessions: DefaultMaxSessions, MaxBytes: DefaultMaxBytes, folder: folder}, nil
}

// workspaceMarker is the file in a workspace's session directory naming
// the workspace folder, so sessions can be listed across workspaces with
// the folder each belongs to (SessionWorkspaces).
const workspaceMarker = "workspace"

// Folder is the workspace folder the store keeps sessions for (cleaned,
// symlinks resolved).
func (st *SessionStore) Folder() string { return st.folder }

// SessionWorkspaces returns the workspace folders that have a session
// directory under stateDir, sorted; directories without a readable marker
// (made before markers existed) are left out.
func SessionWorkspaces(stateDir string) []string {
	root := filepath.Join(stateDir, "sessions")
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, e.Name(), workspaceMarker))
		if err != nil || len(b) == 0 || len(b) > 4096 || !filepath.IsAbs(string(b)) {
			continue
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

// sessionDir is where the sessions of the workspace whose first folder is
// folder live under stateDir.
func sessionDir(stateDir, folder string) string {
	folder = filepath.Clean(folder)
	if real, err := filepath.EvalSymlinks(folder); err == nil {
		folder = real // the same key whether the folder was named through a symlink or not
	}
	sum := sha256.Sum256([]byte(folder))
	return filepath.Join(stateDir, "sessions", hex.EncodeToString(sum[:8]))
}

// ReadSessions lists the saved sessions of the workspace whose first folder
// is folder, newest first, without writing anything: a listing
// (`agentls sessions`) must not leave an empty directory behind for every
// folder it was asked about, nor set aside files it cannot read (those are
// logged and skipped; the next OpenSessionStore.Load sets them aside). A
// workspace with no session directory has no sessions.
func ReadSessions(stateDir, folder string, log *slog.Logger) []Restored {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := &SessionStore{dir: sessionDir(stateDir, folder), log: log, readOnly: true}
	return st.Load()
}

// Dir is the workspace's session directory.
func (st *SessionStore) Dir() string { return st.dir }

func (st *SessionStore) path(id string) string { return filepath.Join(st.dir, id+".json") }

// validID keeps session ids to what NewRunID makes, so an id from a
// client never names a path outside the directory.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Save writes the session with its pending proposals, then drops the
// oldest sessions beyond the bounds. The conversation and notes are
// redacted with redact (secret-looking strings, the configured API key);
// proposals are the user's file texts and are saved as they are.
func (st *SessionStore) Save(s *Session, props []SavedProposal, redact *Redactor) error {
	if !validID(s.id) {
		return fmt.Errorf("save session: invalid id %q", s.id)
	}
	s.mu.Lock()
	f := sessionFile{Version: sessionFileVersion, ID: s.id, sessionState: s.st, Proposals: props}
	f.History = redactHistory(f.History, redact)
	f.Notes = slices.Clone(f.Notes)
	// Known is marshalled outside the lock while a review decision
	// (Session.Decide, from an accept settled after its command's answer,
	// or any accept racing a run's last save) may write it.
	f.Known = maps.Clone(f.Known)
	for i := range f.Notes {
		f.Notes[i] = redact.String(f.Notes[i])
	}
	s.mu.Unlock()
	var data []byte
	for {
		var err error
		data, err = json.Marshal(f)
		if err != nil {
			return fmt.Errorf("save session %s: %w", s.id, err)
		}
		if len(data) <= maxSessionFileBytes || (len(f.History) == 0 && len(f.Known) == 0) {
			break
		}
		if len(f.History) == 0 {
			f.Known = nil // the follow-up then only lacks the diff of the user's later edits
			continue
		}
		f.History = CarryHistory(f.History, len(data)/2-len(data)/8)
	}
	if len(data) > maxSessionFileBytes {
		return fmt.Errorf("save session %s: %d bytes even without its conversation (limit %d)", s.id, len(data), maxSessionFileBytes)
	}
	if err := statedir.WriteFile(st.path(s.id), data); err != nil {
		return fmt.Errorf("save session %s: %w", s.id, err)
	}
	st.prune(s.id)
	return nil
}

type storedFile struct {
	id   string
	size int64
	mod  time.Time
}

func (st *SessionStore) files() []storedFile {
	ents, err := os.ReadDir(st.dir)
	if errors.Is(err, fs.ErrNotExist) && st.readOnly {
		return nil // nothing saved for this workspace yet
	}
	if err != nil {
		st.log.Warn("cannot list sessions", "dir", st.dir, "err", err)
		return nil
	}
	var out []storedFile
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validID(id) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, storedFile{id: id, size: info.Size(), mod: info.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].mod.After(out[j].mod) }) // newest first
	return out
}

// prune drops the least recently written sessions beyond the bounds,
// never keep (the session just saved).
func (st *SessionStore) prune(keep string) {
	var total int64
	n := 0
	for _, f := range st.files() {
		total += f.size
		n++
		if f.id == keep || (n <= st.MaxSessions && total <= st.MaxBytes) {
			continue
		}
		if err := os.Remove(st.path(f.id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			st.log.Warn("cannot drop old session", "session", f.id, "err", err)
			continue
		}
		st.log.Info("dropped old session to stay within bounds", "session", f.id)
		total -= f.size
		n--
	}
}

// Restored is a session read back from its file, with its proposals.
type Restored struct {
	Session   *Session
	Proposals []SavedProposal
}

// Load reads every session of the workspace, newest first. A file that is
// corrupted, of another version or larger than MaxSessionLoadBytes is
// logged, renamed to .bad, and skipped; the others still load.
func (st *SessionStore) Load() []Restored {
	var out []Restored
	for _, sf := range st.files() {
		var r Restored
		err := st.tooLarge(sf.id, sf.size)
		if err == nil {
			r, err = st.load(sf.id)
		}
		if err != nil {
			if st.readOnly {
				st.log.Warn("session file cannot be read; skipped", "session", sf.id, "err", err)
				continue
			}
			st.log.Warn("session file ignored; starting that session afresh", "session", sf.id, "err", err)
			if err := os.Rename(st.path(sf.id), st.path(sf.id)+".bad"); err != nil {
				st.log.Warn("cannot set the session file aside", "session", sf.id, "err", err)
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// LoadOne reads one session (another server may have saved it).
func (st *SessionStore) LoadOne(id string) (Restored, error) {
	if !validID(id) {
		return Restored{}, fmt.Errorf("invalid session id %q", id)
	}
	return st.load(id)
}

// tooLarge is the error for session id's file of size bytes past
// MaxSessionLoadBytes, nil otherwise.
func (st *SessionStore) tooLarge(id string, size int64) error {
	if size <= MaxSessionLoadBytes {
		return nil
	}
	return fmt.Errorf("%s: %w: it is %d MiB, more than the %d MiB a session file may have (agentls writes at most %d MiB); it was not read",
		st.path(id), workspace.ErrTooLarge, size>>20, MaxSessionLoadBytes>>20, maxSessionFileBytes>>20)
}

func (st *SessionStore) load(id string) (Restored, error) {
	// Like every file agentls reads for itself: regular files only, never
	// blocking, bounded even if the file grows while being read.
	data, err := workspace.ReadRegular(st.path(id), MaxSessionLoadBytes)
	if err != nil {
		return Restored{}, err
	}
	var f sessionFile
	if err := json.Unmarshal(data, &f); err != nil {
		return Restored{}, fmt.Errorf("parse %s: %w", st.path(id), err)
	}
	if f.Version != sessionFileVersion {
		return Restored{}, fmt.Errorf("%s has version %d, this agentls reads version %d", st.path(id), f.Version, sessionFileVersion)
	}
	if f.ID != id {
		return Restored{}, fmt.Errorf("%s holds session %q", st.path(id), f.ID)
	}
	if f.Known == nil {
		f.Known = map[string]string{}
	}
	return Restored{Session: &Session{id: id, st: f.sessionState}, Proposals: f.Proposals}, nil
}

// Delete removes one session's file; a missing file is not an error.
func (st *SessionStore) Delete(id string) error {
	if !validID(id) {
		return fmt.Errorf("invalid session id %q", id)
	}
	if err := os.Remove(st.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// Clear removes every session of the workspace.
func (st *SessionStore) Clear() error {
	var errs []error
	for _, f := range st.files() {
		errs = append(errs, st.Delete(f.id))
	}
	return errors.Join(errs...)
}

// redactHistory copies h with secrets removed from message texts and tool
// arguments.
func redactHistory(h []HistoryMessage, redact *Redactor) []HistoryMessage {
	out := make([]HistoryMessage, len(h))
	for i, m := range h {
		msg := m.Message
		msg.Content = redact.String(msg.Content)
		msg.MultiContent = nil
		if len(msg.ToolCalls) > 0 {
			msg.ToolCalls = slices.Clone(msg.ToolCalls)
			for j := range msg.ToolCalls {
				msg.ToolCalls[j].Function.Arguments = redact.String(msg.ToolCalls[j].Function.Arguments)
			}
		}
		out[i] = HistoryMessage{Message: msg, Summary: m.Summary}
	}
	return out
}

// Refresh brings s up to date with its file when another front-end (the
// LSP server, `agentls acp`, `agentls run`) saved the session since s was
// read or last changed here: the conversation, review notes and choices
// then continue from the newer one, so continuing a session in one editor
// after another does not drop the turns made there (nor write them away
// with the next save). A session with a run in progress, or without a
// newer file, is left alone. It reports whether s changed.
func (st *SessionStore) Refresh(s *Session) bool {
	r, err := st.LoadOne(s.id)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != "" || !r.Session.st.Updated.After(s.st.Updated) {
		return false
	}
	s.st = r.Session.st
	return true
}

// SavedSession is a saved session as a listing shows it.
type SavedSession struct {
	Info   SessionInfo
	Folder string // the workspace it belongs to
}

// ListSavedSessions lists the saved sessions that ran something, of
// folder, or of every workspace with saved sessions when folder is "":
// newest first (ties by id), each id once, a workspace that is gone
// skipped. A listing reads only, through ReadSessions as `agentls
// sessions` does: it creates no directory. ACP's session/list uses it.
func ListSavedSessions(stateDir, folder string, log *slog.Logger) []SavedSession {
	folders := []string{folder}
	if folder == "" {
		folders = SessionWorkspaces(stateDir)
	}
	var all []SavedSession
	seen := map[string]bool{}
	for _, f := range folders {
		if _, err := os.Stat(f); err != nil {
			continue // the workspace is gone
		}
		for _, r := range ReadSessions(stateDir, f, log) {
			in := r.Session.Info()
			if len(in.Runs) == 0 || seen[in.ID] {
				continue
			}
			seen[in.ID] = true
			all = append(all, SavedSession{Info: in, Folder: f})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if !all[i].Info.Updated.Equal(all[j].Info.Updated) {
			return all[i].Info.Updated.After(all[j].Info.Updated)
		}
		return all[i].Info.ID < all[j].Info.ID
	})
	return all
}
