package agent

import (
	"errors"
	"testing"
)

func TestDecideFailsClosed(t *testing.T) {
	offered := []Choice{{ID: "allow", Allow: true}, {ID: "allow-always", Allow: true, Always: true}, {ID: "reject"}}
	for _, c := range []struct {
		answer string
		err    error
		want   Choice
	}{
		{"allow", nil, offered[0]},
		{"allow-always", nil, offered[1]},
		{"reject", nil, offered[2]},
		{"", nil, Deny},
		{"ALLOW", nil, Deny},
		{"allow ", nil, Deny},
		{"yes", nil, Deny},
		{"allow", errors.New("the client went away"), Deny},
	} {
		if got := Decide(offered, c.answer, c.err); got != c.want {
			t.Errorf("Decide(%q, %v) = %+v, want %+v", c.answer, c.err, got, c.want)
		}
	}
}
