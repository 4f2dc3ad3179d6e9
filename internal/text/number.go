package text

import (
	"strconv"
	"strings"
)

// Thousands formats n with thousands separators (1,234,567), the way token
// counts are shown to people (run reports, the CLI's last line, plugins).
func Thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
