package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/statedir"
)

// TrustStore remembers which workspace config files the user trusts, by
// path and content hash, in one small JSON file in the user's state
// directory. The file is owner-only (0600 in a 0700 directory) and is
// replaced atomically (temporary file, then rename), so a crash or a
// concurrent reader never sees half a file. A store file that others can
// write is ignored: anyone who can write it could grant trust.
type TrustStore struct {
	path string
	mu   sync.Mutex // serialises read-modify-write within the process
}

// trustFile is the store's on-disk shape.
type trustFile struct {
	Version int                   `json:"version"`
	Files   map[string]trustEntry `json:"files"`
}

type trustEntry struct {
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trustedAt"`
}

// DefaultTrustFile is $XDG_STATE_HOME/agentls/trust.json, else
// ~/.local/state/agentls/trust.json ("" when neither is known). env nil
// means os.Getenv.
func DefaultTrustFile(env func(string) string) string {
	if d := statedir.Dir(env); d != "" {
		return filepath.Join(d, "trust.json")
	}
	return ""
}

// NewTrustStore returns the store kept in path (see DefaultTrustFile).
// An empty path is a store that trusts nothing and cannot remember.
func NewTrustStore(path string) *TrustStore { return &TrustStore{path: path} }

// Path is the store's file.
func (s *TrustStore) Path() string { return s.path }

// Trusted reports whether the user trusts file with this content hash.
// Any failure to read the store means "not trusted".
func (s *TrustStore) Trusted(file, sum string) bool {
	if s == nil || s.path == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tf, err := s.read()
	if err != nil {
		return false
	}
	e, ok := tf.Files[canonical(file)]
	return ok && e.SHA256 == sum
}

// Trust records that the user trusts file with this content hash
// (replacing any earlier hash for the file).
func (s *TrustStore) Trust(file, sum string) error {
	if s == nil || s.path == "" {
		return errors.New("no state directory to remember trust in (set XDG_STATE_HOME or HOME)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tf, err := s.read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// A corrupt or unsafe store is replaced, not merged.
		tf = trustFile{}
	}
	if tf.Files == nil {
		tf.Files = map[string]trustEntry{}
	}
	tf.Version = 1
	tf.Files[canonical(file)] = trustEntry{SHA256: sum, TrustedAt: time.Now().UTC()}
	return s.write(tf)
}

func (s *TrustStore) read() (trustFile, error) {
	var tf trustFile
	f, err := os.Open(s.path)
	if err != nil {
		return tf, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return tf, err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o022 != 0 {
		return tf, fmt.Errorf("trust store %s is not a regular file writable only by its owner; ignored", s.path)
	}
	if st.Size() > 4<<20 {
		return tf, fmt.Errorf("trust store %s is larger than 4 MiB; ignored", s.path)
	}
	if err := json.NewDecoder(f).Decode(&tf); err != nil {
		return tf, fmt.Errorf("trust store %s: %w", s.path, err)
	}
	return tf, nil
}

func (s *TrustStore) write(tf trustFile) error {
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	if err := statedir.WriteFile(s.path, append(data, '\n')); err != nil {
		return fmt.Errorf("trust store %s: %w", s.path, err)
	}
	return nil
}

// canonical is the key a file is remembered under: absolute and clean.
func canonical(file string) string {
	if abs, err := filepath.Abs(file); err == nil {
		return abs
	}
	return filepath.Clean(file)
}
