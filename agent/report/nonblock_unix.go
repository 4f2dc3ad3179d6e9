//go:build unix

package report

import "syscall"

// nonBlock keeps an open of a FIFO planted among the transcripts from
// blocking the report.
const nonBlock = syscall.O_NONBLOCK
