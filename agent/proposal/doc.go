// Package proposal is the store of agent proposals that sits behind the LSP
// face of previews: agentls/proposals, code lenses, accept/reject code
// actions and the WorkspaceEdits sent with workspace/applyEdit.
//
// It is pure logic: no LSP I/O, no file system. The caller (lspserver) tells
// the store what the agent staged (Put), what the document became (the
// DocumentChanged family), and what the client did with an accept plan
// (Applied / Failed); the store answers with snapshots (List, Select, Hunk,
// HunksAt) and with accept plans whose edits land exactly on the document as
// the client has it now.
//
// # Model
//
// A proposal is per (run, path): the run's base text (what the file was when
// the run staged its change), the proposed text, and hunks. Hunks come from a
// line-level diff of base → proposed (udiff.Lines); adjacent changed lines
// form one hunk, so every hunk covers whole lines: it starts at a line start
// and ends at a line start or at the end of the text. Each hunk has an id
// that never changes while the hunk lives (it survives rebases, re-listing
// and a later Put of the same run that keeps the same change) and is never
// reused.
//
// Path is an opaque key: use one canonical form per file (a cleaned file
// system path or a canonical URI), the store compares it as a string.
//
// Hunks split lines at "\n" ("\r\n" included); a lone "\r" does not end a
// hunk line (positions still honour it, through internal/text). Byte offsets
// are the store's unit; the calls that take a text.Encoding convert at the
// edge with a text.Buffer of the current text, built on first use and kept
// in step by DocumentChangedLSP.
//
// All proposals of one path share one current text: the document as the
// client has it now. Hunk byte ranges are relative to it. After a Put, call
// DocumentChanged with the text the server holds for the document now: if it
// differs from the run's base (the user typed while the run was working), the
// new proposal is rebased at once.
//
// # Rebase (three-way)
//
// When the document changes, every hunk is mapped through the user's edits
// (exact edits when the caller has them, else a minimal diff old → new):
//
//   - an edit entirely before a hunk shifts it; one entirely after leaves it;
//   - an edit that changes any byte of the hunk's lines conflicts it;
//   - an insertion exactly at a hunk boundary does not conflict, as long as
//     the hunk still covers whole lines afterwards: inserting whole lines
//     ("text\n") right before a hunk, or anything at the start of the line
//     after it, is fine; typing at column 0 of the hunk's first line
//     ("x" without a newline) changes that line and so conflicts, and so does
//     deleting the newline that ends the line before a hunk (joining it to
//     the hunk's first line);
//   - a pure-insertion hunk (no old lines) keeps its place before text the
//     user inserts at the same point;
//   - if the user's text where the hunk was equals what the hunk would have
//     produced (the user typed the same thing, or the client applied the hunk
//     through a path the store did not see), the hunk is resolved: it is
//     removed as applied;
//   - a conflicted hunk is never put in an accept plan. It keeps tracking the
//     region it covered; if that region becomes its old text again (the user
//     undid the edit) it turns pending again.
//
// A proposal for a new file (created) is pending while the document is
// empty (no text, or one line ending: how Neovim, whose buffers have an
// implicit final newline, shows an empty buffer; the hunk then covers that
// line ending, so accepting yields exactly the proposed text), resolved
// when the document holds exactly the proposed text, and conflicted by
// any other content.
//
// The store remembers, per run and path, the changes the user accepted or
// rejected, so that a later Put of the same run (the agent goes on editing
// the file, its staged text still holding a rejected change) does not bring
// them back. ForgetRun drops that memory when the run ends.
//
// The diff of a whole new text is ambiguous (inserting "a\n" after "a\n"
// looks the same as inserting it before). The store prefers placements that
// cover whole lines, so adding an indented line above a hunk is seen as
// that and not as a change inside the hunk's first line; still, a diff can
// place a user's edit inside a hunk that the user actually made next to it:
// the result is a false conflict, never a wrong edit. Callers that know the exact change
// ranges (incremental didChange) should use DocumentChangedLSP or
// DocumentChangedEdits.
//
// # Cost of a keystroke
//
// DocumentChangedLSP is the keystroke path and never copies the document:
// the store keeps its text as pieces (substrings of the last joined text
// plus what was typed; pieces.go), converts each change's range with its
// Buffer, and rebases every hunk by reading only the bytes around it,
// through a view of the text with the edit applied (source.go); then it
// splices the edit into the pieces and the Buffer. A keystroke costs
// O(hunks + pieces) and about a microsecond on a 10,000-line document; the
// text is joined into one string only when a snapshot or an accept needs
// it (List, Accept), and then kept until the next edit. The calls that
// take a whole new text (DocumentChanged, DocumentChangedEdits, a change
// without a range) cost O(document), as the text they carry does.
//
// Revision lets the caller notice that the store's text changed under it
// (Applied landed a plan between the caller's own update and its call):
// DocumentChangedLSP then refuses the change with ErrStale instead of
// applying it twice, and the caller resyncs with DocumentChanged.
//
// # Accept
//
// Accept builds an AcceptPlan for the selected pending hunks: per file, the
// byte edits against the current text, the same edits refined to a minimal
// character-level set in the negotiated encoding (text.Edit, ready for a
// TextDocumentEdit), the document version they were computed against, and
// the text expected afterwards. The selected hunks are marked as applying
// until the caller reports Applied or Failed; one of the two must follow
// every plan (Failed is the safe answer when unsure).
//
// Clients usually send didChange for the applied edit before they answer
// workspace/applyEdit. DocumentChanged recognises a text equal to an
// in-flight plan's expected text and treats it as that plan landing; Applied
// arriving first works as well, and either order leaves the other hunks
// rebased exactly. A client may send the edit late, in the same didChange
// as what the user typed after it (eglot): the plan lands at the content
// change after which the document is its result, and the rest is rebased
// as the user's (DocumentChangedLSP); a text that never equals the result
// lands nothing. Landing a plan keeps pure-insertion hunks that share a
// point with an accepted one in their proposal's order; this needs the
// client's didChange for the applied edit to arrive as one notification
// (every client we know sends one), else two such hunks may swap.
//
// # Proposals that overlap
//
// Two runs may propose changes to the same lines (the same prompt run
// twice proposes the same block twice). Such hunks clash (clash.go: they
// change the same lines, or one's added lines are already in the
// other's). An accept plan never holds two clashing hunks: the one taken
// first in document order (the earlier proposal at equal places) goes in,
// the other is reported in Conflicts. When a plan lands, every other hunk
// its hunks clash with is superseded: conflicted for good, with a reason
// naming the accepted hunk; it never turns pending again (not even if the
// user undoes the accept), and a later Put of its run that still holds
// the same change keeps it so. A hunk is therefore applied at most once,
// and the same change never twice.
//
// Two proposals to create one file always clash. When the caller knows
// the later one is a new version of the earlier (a session's follow-up
// read the pending new file and wrote its own), ReplaceCreated supersedes
// the earlier one at once, so accepting everything creates the file once,
// with the later text (replace.go).
//
// # Events
//
// OnChange subscribers are called after the store's lock is released, in the
// goroutine that made the change, with the path whose proposal set or hunk
// statuses changed. Pure shifts of ranges (the user typed elsewhere) do not
// notify: clients map ranges through their own edits. A subscriber must not
// block; lspserver should hand work that calls the client (codeLens refresh)
// to a goroutine, since a server→client call from an inline notification
// handler deadlocks (docs/pitfalls.md "LSP: server→client calls").
package proposal
