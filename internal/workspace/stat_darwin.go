package workspace

import "syscall"

// sigOf extracts what the cache compares from a stat result (macOS field
// names and widths; see stat_linux.go).
func sigOf(st *syscall.Stat_t) statSig {
	return statSig{
		size:  st.Size,
		mtime: st.Mtimespec.Nano(),
		ctime: st.Ctimespec.Nano(),
		ino:   st.Ino,
		dev:   uint64(st.Dev),
		mode:  uint32(st.Mode),
	}
}
