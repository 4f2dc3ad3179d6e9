package lspcodec

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// A pre-encoded answer goes out as it is, without spare capacity (a
// cached answer may be written for several requests at once), and nil as
// null.
func TestMarshalRawAnswers(t *testing.T) {
	buf := make([]byte, 0, 64)
	buf = append(buf, `[{"title":"x"}]`...)
	jr := jsonrpc2.RawMessage(buf)
	for _, v := range []any{json.RawMessage(buf), jsonrpc2.RawMessage(buf), &jr, json.RawMessage(nil), (*jsonrpc2.RawMessage)(nil)} {
		out, err := Codec{}.Marshal(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if cap(out) != len(out) {
			t.Errorf("%T: %q has spare capacity %d", v, out, cap(out)-len(out))
		}
		if len(out) == 0 {
			t.Errorf("%T: empty answer", v)
		}
	}
	if out, _ := (Codec{}).Marshal(json.RawMessage(buf)); string(out) != `[{"title":"x"}]` {
		t.Errorf("raw answer changed: %q", out)
	}
	if out, _ := (Codec{}).Marshal(json.RawMessage(nil)); string(out) != "null" {
		t.Errorf("nil answer: %q", out)
	}
}
