package tools

import "context"

// Context keys that tell a tool who is calling it. A tool call normally
// comes from the model; the script tool calls tools on behalf of a program,
// which wants values rather than text and reads far more than a model could.
type (
	wantDataKey struct{}
	callIDKey   struct{}
)

// WithData marks ctx as a call from a program: the tool should fill
// Result.Data, with the bounds of DataLimits instead of those sized for a
// model's context.
func WithData(ctx context.Context) context.Context {
	return context.WithValue(ctx, wantDataKey{}, true)
}

// WantsData reports whether the caller wants Result.Data (see WithData).
func WantsData(ctx context.Context) bool {
	v, _ := ctx.Value(wantDataKey{}).(bool)
	return v
}

// WithCallID records the id of the model's tool call that ctx runs, so a
// tool that calls other tools (script) can name its calls' parent.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID is the id set by WithCallID, or "".
func CallID(ctx context.Context) string {
	v, _ := ctx.Value(callIDKey{}).(string)
	return v
}

// Bounds of a call made for a program (WithData): the values never reach
// the model, only what the program prints does, so they may be larger than
// a model-facing result, but a program still gets an error rather than a
// silently shortened list when a search matches more than this.
const (
	DataMaxMatches   = 10000   // grep lines, glob paths, list_dir entries
	DataMaxReadBytes = 4 << 20 // read_file text per call
	DataMaxLineLen   = 2000    // characters of a grep line
)
