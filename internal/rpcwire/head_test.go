package rpcwire

import "testing"

// The id is found before a cut in the middle of the payload, wherever it
// sits, and only answers count as responses.
func TestHead(t *testing.T) {
	for _, tc := range []struct {
		in       string
		id       string
		response bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":"xxxxxxxx`, "7", true},
		{`{"jsonrpc":"2.0","result":{"content":"xx`, "", true}, // the id comes after the cut
		{`{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":"a"}`, `"a"`, true},
		{`{"jsonrpc":"2.0","id":3,"method":"x","params":{"t":"xxx`, "3", false},
		{`{"id":null,"result":1}`, "", true},
		{`[{"id":1,"result":1}]`, "", false},
		{`garbage`, "", false},
	} {
		id, resp := Head([]byte(tc.in))
		if string(id) != tc.id || resp != tc.response {
			t.Errorf("Head(%.40q) = %s, %v; want %s, %v", tc.in, id, resp, tc.id, tc.response)
		}
	}
}
