package workspace

import "syscall"

// sigOf extracts what the cache compares from a stat result (Linux field
// names; see stat_darwin.go).
func sigOf(st *syscall.Stat_t) statSig {
	return statSig{
		size:  st.Size,
		mtime: st.Mtim.Nano(),
		ctime: st.Ctim.Nano(),
		ino:   st.Ino,
		dev:   st.Dev,
		mode:  st.Mode,
	}
}
