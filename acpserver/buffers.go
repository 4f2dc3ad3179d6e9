package acpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/rpcwire"
	"github.com/agentls/agentls/internal/workspace"
)

// Editor buffers over ACP. An LSP editor pushes its open buffers
// (didOpen/didChange) into the workspace view; an ACP client does not, but
// it may offer fs/read_text_file, which answers with the editor's text,
// unsaved edits included. When it does, every read a tool makes for the
// model (read_file, the lock check of each edit; tools.Env.BeforeRead)
// first pulls the file from the client into the view as an overlay, so
// the agent sees and locks against what the user sees. Files the client
// cannot read (missing) fall back to the disk. The overlays live for one
// prompt: the next prompt pulls again.

// syncBuffer pulls path from the client's buffers into the view, when the
// client offers fs/read_text_file; bounded by client.requestTimeoutSeconds.
// A buffer is bounded like a file read from disk (View.MaxFileBytes).
// A failed read falls back to the disk (the file is not open, or missing),
// except a buffer too large to take: then the read fails, since the disk
// may not hold what the user sees.
func (ss *session) syncBuffer(ctx context.Context, path string) error {
	if !ss.srv.clientCaps().Fs.ReadTextFile || ctx.Err() != nil {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, ss.clientTimeout())
	defer cancel()
	resp, err := ss.srv.conn.ReadTextFile(rctx, acp.ReadTextFileRequest{SessionId: acp.SessionId(ss.id), Path: path})
	size, tooLarge := answerTooLarge(err)
	if err == nil && int64(len(resp.Content)) > ss.view.MaxFileBytes() {
		size, tooLarge = len(resp.Content), true
	}
	if tooLarge {
		ss.dropBuffer(path)
		return fmt.Errorf("read %s: %w: the editor's text of it is %d bytes, more than agentls takes from the editor (%d); search it with grep instead (grep reads the saved file)",
			ss.display(path), workspace.ErrTooLarge, size, ss.view.MaxFileBytes())
	}
	if err != nil {
		ss.srv.log.Debug("fs/read_text_file failed; reading the disk", "path", path, "err", err)
		ss.dropBuffer(path)
		return nil
	}
	ss.setBuffer(path, resp.Content)
	return nil
}

// setBuffer makes text the view's overlay for path.
func (ss *session) setBuffer(path, text string) {
	ss.mu.Lock()
	ss.bufVer++
	v := ss.bufVer
	ss.synced[path] = true
	ss.mu.Unlock()
	ss.view.Open(path, v, text)
}

// dropBuffer removes path's overlay, if this session made one.
func (ss *session) dropBuffer(path string) {
	ss.mu.Lock()
	had := ss.synced[path]
	delete(ss.synced, path)
	ss.mu.Unlock()
	if had {
		ss.view.Close(path)
	}
}

// dropBuffers removes every overlay taken from the client (end of a
// prompt): the next prompt reads afresh.
func (ss *session) dropBuffers() {
	ss.mu.Lock()
	paths := sortedKeys(ss.synced)
	clear(ss.synced)
	ss.mu.Unlock()
	for _, p := range paths {
		ss.view.Close(p)
	}
}

// clientTimeout bounds one fs/* request to the client
// (client.requestTimeoutSeconds, as for the LSP server's requests).
func (ss *session) clientTimeout() time.Duration {
	ss.mu.Lock()
	d := ss.reqTimeout
	ss.mu.Unlock()
	if d <= 0 {
		d = time.Duration(config.Defaults().Client.RequestTimeoutSeconds) * time.Second
	}
	return d
}

// answerTooLarge reports whether err is the error the wire guard
// (rpcwire.Lines) put in place of an oversized answer, and that answer's
// size.
func answerTooLarge(err error) (int, bool) {
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return 0, false
	}
	d, ok := re.Data.(map[string]any)
	if !ok || d["agentls"] != rpcwire.AnswerTooLarge {
		return 0, false
	}
	n, _ := d["bytes"].(float64)
	return int(n), true
}
