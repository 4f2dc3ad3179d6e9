package agent

import (
	"fmt"
	"strings"
)

// truncateOutput caps a tool result at maxLines lines and maxBytes bytes,
// keeping the head, and tells the model how to get the rest. Tools truncate
// their own output already; this is the loop's safety net for tools that do
// not (MCP servers).
func truncateOutput(s string, maxLines, maxBytes int) string {
	if len(s) <= maxBytes && strings.Count(s, "\n") < maxLines {
		return s
	}
	totalLines := strings.Count(s, "\n") + 1
	if strings.HasSuffix(s, "\n") {
		totalLines--
	}
	head := s
	// Cut at maxLines lines.
	idx, n := 0, 0
	for n < maxLines {
		i := strings.IndexByte(head[idx:], '\n')
		if i < 0 {
			idx = len(head)
			break
		}
		idx += i + 1
		n++
	}
	head = head[:idx]
	// Then at maxBytes, on a line boundary unless that loses more than
	// half of what fits (one very long line).
	if len(head) > maxBytes {
		head = cutUTF8(head, maxBytes)
		if i := strings.LastIndexByte(head, '\n'); i >= len(head)/2 {
			head = head[:i+1]
		}
	}
	shown, shownBytes := strings.Count(head, "\n"), len(head)
	if !strings.HasSuffix(head, "\n") {
		shown++
		head += "\n"
	}
	return head + fmt.Sprintf("[output truncated: showing lines 1-%d of %d (%d of %d bytes). "+
		"Page through a file with read_file offset/limit, or narrow the search with grep (pattern, path, glob).]",
		shown, totalLines, shownBytes, len(s))
}
