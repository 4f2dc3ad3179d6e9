// Package editmatch finds where an edit's old_string lies in a file and
// applies the edit: the matching ladder behind the edit_file and
// multi_edit tools. It is pure text in, text out (no file access), so the
// tools package keeps the locking, staging and reporting, and this package
// can be tested and fuzzed on its own.
//
// The rule that shapes every rung: an edit that lands in the wrong place is
// worse than one that is refused, so anything looser than an exact match is
// accepted only when it is unique and the looseness is one the file itself
// shows to be equivalent; every refusal says what to fix.
package editmatch
