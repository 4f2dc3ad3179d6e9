package script

import "encoding/json"

// The parent (the agentls process) and the child (the same binary started
// with childEnv set) talk over two pipes, one JSON value per line: the
// parent sends a start message, then answers each call; the child sends
// calls and, last, done.

// startMsg is the program and its bounds.
type startMsg struct {
	Code        string     `json:"code"`
	Funcs       []funcSpec `json:"funcs"`
	MaxSteps    uint64     `json:"maxSteps"`
	MaxOutput   int        `json:"maxOutput"`
	MemoryLimit int64      `json:"memoryLimit"`
}

// funcSpec is one tool offered to the program as a function: positional
// arguments map to Params in order; keyword arguments may also name
// parameters not in Params when the schema did not list them (Open).
type funcSpec struct {
	Name   string   `json:"name"`
	Params []string `json:"params"`
	Open   bool     `json:"open,omitempty"`
}

// childMsg is a printed line, a call of a function, or the end of the
// program.
type childMsg struct {
	Print string   `json:"print,omitempty"`
	Call  *callMsg `json:"call,omitempty"`
	Done  *doneMsg `json:"done,omitempty"`
}

type callMsg struct {
	Fn   string          `json:"fn"`
	Args json.RawMessage `json:"args"`
}

// replyMsg answers a call: the tool's value as JSON, or an error message
// that the function raises in the program.
type replyMsg struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

// doneMsg is how the program ended.
type doneMsg struct {
	Result string `json:"result,omitempty"` // its result value, formatted
	Error  string `json:"error,omitempty"`  // why it failed, with the line
	Steps  uint64 `json:"steps"`
}
