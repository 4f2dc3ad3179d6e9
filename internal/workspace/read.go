package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
	"unicode/utf8"
	"unsafe"
)

// sniffLen is how much of a file is searched for NUL bytes, as git and
// ripgrep do; the whole file must still be valid UTF-8.
const sniffLen = 8 << 10

// Read returns one consistent version of path: the editor's buffer when the
// file is open, else the disk content through the read cache. path is
// confined by Resolve first. Every cache hit is re-validated by stat (size,
// mtime, ctime, inode), and recently modified files are re-hashed, so Read
// never serves stale content even with no watcher running. If validation
// finds that a cached file changed or vanished, subscribers get the event
// the watcher would have sent.
//
// Errors wrap fs.ErrNotExist (missing), ErrBinary (NUL bytes or invalid
// UTF-8), ErrTooLarge (over Options.MaxFileBytes), ErrNotRegular (FIFO,
// socket, device) or ErrOutside; a
// directory gets an error telling the caller to list it instead.
func (v *View) Read(path string) (Snapshot, error) {
	var st syscall.Stat_t
	p, have, err := v.resolve(path, &st)
	if err != nil {
		return Snapshot{}, err
	}
	if s, ok := v.overlayAt(p); ok {
		return s, nil
	}
	if !have {
		if err := syscall.Stat(p, &st); err != nil {
			if old := v.cache.remove(p); old != nil && errors.Is(err, syscall.ENOENT) {
				v.emit(Event{Path: p, Kind: Removed})
			}
			return Snapshot{}, fmt.Errorf("read %s: %w", p, &os.PathError{Op: "stat", Path: p, Err: err})
		}
	}
	e, err := v.readDisk(p, sigOf(&st))
	if err != nil {
		return Snapshot{}, err
	}
	return v.snapshotOf(e)
}

// snapshotOf turns a cache entry into what Read returns.
func (v *View) snapshotOf(e *entry) (Snapshot, error) {
	if e.binary {
		return Snapshot{}, fmt.Errorf("read %s: %w: it contains NUL bytes or is not valid UTF-8; only text files can be read or edited", e.path, ErrBinary)
	}
	return Snapshot{
		Path:    e.path,
		Key:     e.path,
		Text:    e.text,
		Hash:    e.hash,
		Size:    e.sig.size,
		ModTime: time.Unix(0, e.sig.mtime),
	}, nil
}

// readDisk returns a validated cache entry for the resolved path p whose
// current stat is sig, loading it when the cache has none or the file
// changed.
func (v *View) readDisk(p string, sig statSig) (*entry, error) {
	if err := v.checkReadable(p, sig); err != nil {
		v.cache.remove(p)
		return nil, err
	}
	old := v.cache.get(p)
	if old != nil && old.sig == sig && !old.racy {
		return old, nil
	}
	e, err := v.load(p)
	if err != nil {
		return nil, err
	}
	v.cache.put(e)
	if old != nil && old.hash != e.hash {
		v.emit(Event{Path: p, Kind: Changed})
	}
	return e, nil
}

// checkReadable refuses directories, devices and files over the size limit
// with messages that say what to do instead.
func (v *View) checkReadable(p string, sig statSig) error {
	switch {
	case sig.isDir():
		return fmt.Errorf("read %s: is a directory; list it with list_dir or search it with glob/grep", p)
	case !sig.isRegular():
		return notRegular(p, sig.mode)
	case sig.size > v.maxFile:
		return fmt.Errorf("read %s: %w: %d bytes, the limit is %d; search it with grep instead", p, ErrTooLarge, sig.size, v.maxFile)
	}
	return nil
}

// load reads p from disk, opened by OpenFile (regular files only, never
// blocking, confined on the descriptor). The stat signature is taken from the open file
// BEFORE reading, so a write racing with the read leaves an entry whose
// signature is older than its content: the next hit sees a different stat
// and reloads, never the reverse.
func (v *View) load(p string) (*entry, error) {
	f, err := v.OpenFile(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	now := time.Now()
	sig := f.sig
	if err := v.checkReadable(p, sig); err != nil {
		return nil, err
	}
	data, err := readLimited(f, sig.size, v.maxFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if int64(len(data)) > v.maxFile {
		return nil, fmt.Errorf("read %s: %w: more than %d bytes; search it with grep instead", p, ErrTooLarge, v.maxFile)
	}
	sum := sha256.Sum256(data)
	e := &entry{path: p, hash: hex.EncodeToString(sum[:]), sig: sig, racy: sig.racyAt(now)}
	if isBinary(data) {
		e.binary = true
	} else if len(data) > 0 {
		// data is never written again, so sharing it avoids copying up to
		// MaxFileBytes per read.
		e.text = unsafe.String(&data[0], len(data))
	}
	return e, nil
}

// readLimited reads r to EOF, sized for the expected length, returning at
// most limit+1 bytes so the caller can tell that the file grew past limit.
func readLimited(r io.Reader, size, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(size, limit)+1)
	for int64(len(buf)) <= limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(int64(cap(buf)), limit+1)
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// isBinary reports content tools must not treat as text.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 || !utf8.Valid(data)
}

// hashString is the hex SHA-256 used for every Snapshot.Hash.
func hashString(s string) string {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s)))
	return hex.EncodeToString(sum[:])
}

// ReadOrNone is Read for callers to whom a missing file is a file still
// to be created (a note's change of AGENTS.md, a revert's target): ok is
// false, with no error, when path does not exist; every other failure
// (outside the folders, too large) stays an error, so nothing is taken
// for empty that is not.
func (v *View) ReadOrNone(path string) (snap Snapshot, ok bool, err error) {
	snap, err = v.Read(path)
	switch {
	case err == nil:
		return snap, true, nil
	case errors.Is(err, fs.ErrNotExist):
		return Snapshot{}, false, nil
	default:
		return Snapshot{}, false, err
	}
}
