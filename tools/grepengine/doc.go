// Package grepengine finds the lines of a buffer that match an RE2
// pattern, as grep and ripgrep define a matching line, at ripgrep's speed:
// literal prefilters with SIMD byte searches and a lazy DFA, with Go's
// regexp as the fallback. The grep tool in package tools walks the files
// and formats results; this package only answers "which lines match".
package grepengine
