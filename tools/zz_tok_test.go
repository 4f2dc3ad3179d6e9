package tools

import (
	"os"
	"testing"
)

func TestZZTok(t *testing.T) {
	enc := encoding(t, "o200k_base")
	for _, f := range []string{"/tmp/tok/a.txt", "/tmp/tok/b.txt", "/tmp/tok/c.txt"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		t.Logf("%s %d", f, len(enc.Encode(string(b), nil, nil)))
	}
}
