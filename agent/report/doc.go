// Package report renders run transcripts (agent.Transcript's JSONL) as one
// self-contained HTML page a person can read: the run's prompt, each model
// turn with its text and tokens, each tool call with its arguments and
// whole result, every proposed change as a coloured diff with its fate,
// sub-agents nested under their task call, plans, checks and totals.
//
// The page loads nothing from outside (inline CSS and one inline script,
// pinned by a Content-Security-Policy hash, so even a rendering mistake
// cannot run anything else), opens offline and can be attached to a bug
// report. Everything shown comes from the transcript, which is redacted
// when written; the report redacts again (keys, bearer tokens, URL
// credentials) so a transcript from an older version cannot leak through
// it, and escapes everything (html/template), with control and
// bidirectional-override characters made visible.
package report
