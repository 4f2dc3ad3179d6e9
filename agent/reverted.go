package agent

import (
	"fmt"
	"log/slog"
	"slices"

	"github.com/agentls/agentls/agent/revert"
)

// Reverted records a run's revert once its files were written back (by
// the editor, or on disk by `agentls revert`), the same on every face:
// the snapshot is marked reverted in st (a second revert does nothing and
// says so), each file written back gets a "reverted" fate in the run's
// transcript, found in tdir ("" the default, NoTranscript: none) or
// through sess, which may know the file, and sess, when given, is told
// what was reverted and what was left alone (its next run reads it; the
// caller saves it). It returns that summary, and the error of marking the
// snapshot: fates are best effort, since a run without a transcript has
// no report to complete. Nothing is recorded when done is empty.
func Reverted(st *revert.Store, runID string, done, left []revert.Result, tdir string, sess *Session) (string, error) {
	summary := revert.Summary(append(slices.Clone(done), left...))
	if len(done) == 0 {
		return summary, nil
	}
	err := st.MarkReverted(runID)
	if tdir != NoTranscript {
		transcript, terr := "", error(nil) // looked up once for all the files
		for _, r := range done {
			f := Fate{RunID: runID, Path: r.Path, Fate: FateReverted, Hunks: r.Reverted, Reason: r.Conflict}
			switch {
			case sess != nil:
				_ = sess.RecordFate(tdir, f)
			case transcript == "" && terr == nil:
				if transcript, terr = FindTranscript(tdir, runID); terr == nil {
					_ = RecordFateAt(transcript, f)
				}
			case terr == nil:
				_ = RecordFateAt(transcript, f)
			}
		}
	}
	if sess != nil {
		sess.NoteRevert(runID, summary)
	}
	return summary, err
}

// NoteRevertSaved tells the saved session sessionID of the workspace
// folder, under stateDir, what a revert did (summary, as Reverted returns
// it), for a face that holds no live session (`agentls revert`): its next
// run reads it. A session not saved there has nobody to tell, which is no
// error; the error is a session found but not saved back.
func NoteRevertSaved(stateDir, folder, sessionID, runID, summary string, log *slog.Logger) error {
	if sessionID == "" || stateDir == "" {
		return nil
	}
	st, err := OpenSessionStore(stateDir, folder, log)
	if err != nil {
		return nil
	}
	r, err := st.LoadOne(sessionID)
	if err != nil {
		return nil
	}
	r.Session.NoteRevert(runID, summary)
	if err := st.Save(r.Session, r.Proposals, NewRedactor()); err != nil {
		return fmt.Errorf("the session was not told: %w", err)
	}
	return nil
}
