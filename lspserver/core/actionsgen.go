package core

import "sync/atomic"

// Code action lists are cached (lspserver/runs/actioncache.go): editors ask
// for them on every cursor move, mostly at a place they asked about
// before. A cached list is valid only while nothing it was built from
// changed. The parts of the server that hold such state without a
// version of their own (the open buffers, task comments, language-server
// problems placed on proposals, settings, folders) call ActionsChanged
// after each change; the cache stamps each answer with ActionsGen, read
// before the answer is built, and an answer stamped with an older value
// is never served again.

// actionsGen counts ActionsChanged calls.
type actionsGen struct{ n atomic.Uint64 }

// ActionsChanged tells the code action cache that something its answers
// may depend on changed. Call it after the change is visible to readers.
func (s *Server) ActionsChanged() { s.actions.n.Add(1) }

// ActionsGen is the number of ActionsChanged calls so far.
func (s *Server) ActionsGen() uint64 { return s.actions.n.Load() }
