package agent

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
	"unicode/utf8"
	"weak"

	"github.com/agentls/agentls/agent/llm"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// encodingName is the BPE used for counting. o200k_base is the tokenizer of
// current OpenAI models; for other providers it is a close estimate, which
// is all compaction and budgets need.
const encodingName = "o200k_base"

// Bounds that keep counting linear and cheap whatever the model sends.
const (
	// exactCountBytes is how much of one text is tokenized exactly; the
	// rest is estimated (estimateBytesPerToken). Answers are capped at
	// model.maxAnswerBytes anyway; this bounds the CPU spent counting one.
	exactCountBytes = 256 << 10
	// segmentBytes: texts are tokenized in segments of about this size, cut
	// before whitespace, so the tokenizer's regex never sees a huge input.
	segmentBytes = 4 << 10
	// maxRunBytes cuts runs without whitespace: the BPE merge is quadratic
	// in the length of one regex piece, and a megabyte with no whitespace
	// is one piece. Real tokens are far shorter; a cut costs at most one
	// token of accuracy per maxRunBytes.
	maxRunBytes = 128
	// estimateBytesPerToken is the estimate used past exactCountBytes and
	// when the tables cannot be loaded.
	estimateBytesPerToken = 4
	// tablesIdleRelease is how long the tables stay loaded after the last
	// run ends, so back-to-back runs do not reload them, while an idle
	// server does not keep ~37 MB for nothing.
	tablesIdleRelease = 15 * time.Second
)

// tables is the process's tokenizer: about 37 MB of BPE ranks, loaded on
// the first exact count (not at start: a server that never counts never
// pays), kept while runs are active and for tablesIdleRelease after, then
// dropped and the memory returned to the OS. The tiktoken-go package
// caches encodings forever in GetEncoding, so the tokenizer is built here
// from the offline loader instead.
var tables struct {
	mu      sync.Mutex
	weak    weak.Pointer[tiktoken.Tiktoken] // valid while anyone still uses it
	held    *tiktoken.Tiktoken              // the strong reference while runs are active
	active  int                             // runs between holdTables and releaseTables
	timer   *time.Timer                     // pending idle release
	failed  bool                            // loading failed once: estimate from then on
	loading sync.Mutex                      // one load at a time
}

// loadTables returns the tokenizer, loading it if nobody holds it.
func loadTables() *tiktoken.Tiktoken {
	tables.mu.Lock()
	if enc := tables.weak.Value(); enc != nil || tables.failed {
		tables.mu.Unlock()
		return enc
	}
	tables.mu.Unlock()
	tables.loading.Lock()
	defer tables.loading.Unlock()
	tables.mu.Lock()
	if enc := tables.weak.Value(); enc != nil || tables.failed {
		tables.mu.Unlock()
		return enc
	}
	tables.mu.Unlock()
	enc, err := buildTiktoken()
	tables.mu.Lock()
	defer tables.mu.Unlock()
	if err != nil {
		tables.failed = true
		return nil
	}
	tables.weak = weak.Make(enc)
	if tables.active > 0 {
		tables.held = enc
	}
	return enc
}

// buildTiktoken builds the o200k_base tokenizer from the tables shipped in
// tiktoken-go-loader (nothing is downloaded), bypassing tiktoken-go's
// process-lifetime encoding cache.
func buildTiktoken() (*tiktoken.Tiktoken, error) {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe("https://openaipublic.blob.core.windows.net/encodings/" + encodingName + ".tiktoken")
	if err != nil {
		return nil, err
	}
	special := map[string]int{tiktoken.ENDOFTEXT: 199999, tiktoken.ENDOFPROMPT: 200018}
	enc := &tiktoken.Encoding{Name: encodingName, PatStr: o200kPattern, MergeableRanks: ranks, SpecialTokens: special}
	bpe, err := tiktoken.NewCoreBPE(ranks, special, o200kPattern)
	if err != nil {
		return nil, err
	}
	specialSet := map[string]any{}
	for k := range special {
		specialSet[k] = true
	}
	return tiktoken.NewTiktoken(bpe, enc, specialSet), nil
}

// o200kPattern is o200k_base's pre-tokenizer regex, as tiktoken-go defines it.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
	`\p{N}{1,3}|` +
	` ?[^\s\p{L}\p{N}]+[\r\n/]*|` +
	`\s*[\r\n]+|` +
	`\s+(?!\S)|` +
	`\s+`

// holdTables marks a run as active: loaded tables stay loaded until the
// last active run calls releaseTables (and tablesIdleRelease more).
func holdTables() {
	tables.mu.Lock()
	defer tables.mu.Unlock()
	tables.active++
	if tables.timer != nil {
		tables.timer.Stop()
		tables.timer = nil
	}
	if tables.held == nil {
		tables.held = tables.weak.Value()
	}
}

// releaseTables ends a holdTables; after the last one, the tables are
// dropped once the server has been idle for tablesIdleRelease.
func releaseTables() {
	tables.mu.Lock()
	defer tables.mu.Unlock()
	tables.active--
	if tables.active > 0 || tables.held == nil {
		return
	}
	if tables.timer != nil {
		tables.timer.Stop()
	}
	tables.timer = time.AfterFunc(tablesIdleRelease, dropTables)
}

// dropTables lets the tables be collected and returns the memory to the
// OS, unless a run started meanwhile. A Counter still alive keeps its own
// reference (Counters live as long as a run).
func dropTables() {
	tables.mu.Lock()
	if tables.active > 0 || tables.held == nil {
		tables.mu.Unlock()
		return
	}
	tables.held, tables.timer = nil, nil
	tables.mu.Unlock()
	debug.FreeOSMemory()
}

// Counter counts tokens for compaction decisions, token budgets when the
// provider reports no usage, and prompt-size checks. Counting is linear in
// the text's length: texts are tokenized in bounded segments, exactly up to
// exactCountBytes and estimated past it. It is safe for concurrent use.
type Counter struct {
	once sync.Once
	enc  *tiktoken.Tiktoken // nil: estimate from length
}

// NewCounter returns a counter using the offline o200k_base tokenizer, or a
// length-based estimate (4 bytes a token) if the tables cannot be loaded.
// The tables are loaded on the first count, not here.
func NewCounter() *Counter { return &Counter{} }

func (c *Counter) encoding() *tiktoken.Tiktoken {
	c.once.Do(func() { c.enc = loadTables() })
	return c.enc
}

// Count returns the number of tokens in s.
func (c *Counter) Count(s string) int {
	n, _ := c.CountContext(context.Background(), s)
	return n
}

// CountContext is Count that stops when ctx is done (checked between
// segments), returning ctx's error.
func (c *Counter) CountContext(ctx context.Context, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	var enc *tiktoken.Tiktoken
	if c != nil {
		enc = c.encoding()
	}
	if enc == nil {
		return estimate(len(s)), nil
	}
	exact, rest := s, 0
	if len(s) > exactCountBytes {
		cut := runeStart(s, exactCountBytes)
		exact, rest = s[:cut], len(s)-cut
	}
	total := 0
	for len(exact) > 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n := nextSegment(exact)
		total += len(enc.EncodeOrdinary(exact[:n]))
		exact = exact[n:]
	}
	return total + estimate(rest), nil
}

// estimate is the length-based token estimate.
func estimate(bytes int) int {
	return (bytes + estimateBytesPerToken - 1) / estimateBytesPerToken
}

// nextSegment returns the length of the first segment of s: it ends before
// a whitespace byte that follows a non-whitespace one once segmentBytes are
// reached (tiktoken attaches a leading space to the next word, so this
// splits where the tokenizer would), or inside a run of maxRunBytes
// without whitespace, at a rune boundary.
func nextSegment(s string) int {
	run := 0
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			if i >= segmentBytes && i > 0 && !isSpace(s[i-1]) {
				return i
			}
			run = 0
			continue
		}
		run++
		if run > maxRunBytes {
			if cut := runeStart(s, i); cut > 0 {
				return cut
			}
		}
	}
	return len(s)
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// runeStart moves i back to the start of the rune containing s[i].
func runeStart(s string, i int) int {
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// perMessage approximates the chat-format framing each message costs
// (role, separators), as OpenAI documents for its chat models.
const perMessage = 4

// Message returns the tokens one chat message costs in a request.
func (c *Counter) Message(m llm.Message) int {
	n := perMessage + c.Count(m.Content) + c.Count(m.Name)
	for _, p := range m.MultiContent {
		n += c.Count(p.Text)
	}
	for _, tc := range m.ToolCalls {
		n += perMessage + c.Count(tc.Function.Name) + c.Count(tc.Function.Arguments)
	}
	return n
}

// Tools returns the tokens the tool definitions cost in a request.
func (c *Counter) Tools(defs []llm.ToolDef) int {
	n := 0
	for _, d := range defs {
		n += 8 + c.Count(d.Name) + c.Count(d.Description) + c.Count(string(d.Parameters))
	}
	return n
}
