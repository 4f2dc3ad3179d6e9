// Package desk is the review desk every face shares: the proposal store
// (agent/proposal) and the rules around it that do not depend on the
// protocol. It stages a run's changes onto the document as the editor
// has it, keeps the store's copy of each document up to date (typing,
// opening, closing, disk changes), plans accepts on the current text,
// rejects hunks with the user's reason, and turns both into the
// agent.Decisions a run's session is told. It checks that an accepted
// edit landed in the editor's documents (landing.go), and keeps what
// language servers found in each proposal (the problem book). An
// apply-mode run, whose changes skip review, keeps its account of what
// the editor took in an ApplyRun.
//
// The faces keep only presentation: lspserver/review shows hunks as
// diagnostics, code lenses and code actions and lands accepts with
// workspace/applyEdit; acpserver asks with session/request_permission
// and writes with fs/write_text_file. Each face gives the desk its view
// of documents as a Source: the LSP face has versioned editor buffers,
// the ACP face only the text of files it read.
package desk
