package safetext

import "testing"

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "''"},
		{"plain", "plain"},
		{"/home/me/my-project_2/v1.2,x:y@z+w", "/home/me/my-project_2/v1.2,x:y@z+w"},
		{"--flag=value", "--flag=value"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{`say "hi"`, `'say "hi"'`},
		{"$HOME", "'$HOME'"},
		{"a;rm -rf ~", "'a;rm -rf ~'"},
		{"~/x", "'~/x'"},
		{"*.go", "'*.go'"},
		{"FOO=bar", "'FOO=bar'"},
		{"%1", "'%1'"},
		{"50%", "50%"},
		{"a\nb", `$'a\nb'`},
		{"it's\x1b", `$'it\'s\x1b'`},
		{`back\slash` + "\t", `$'back\\slash\t'`},
		{"abc\u202edcba", `$'abc\u202edcba'`},
		{"c1\u009b", `$'c1\u009b'`},
		{"bad\xff", `$'bad\xff'`},
		{"héllo", "'héllo'"},
		{"漢字 😀", "'漢字 😀'"},
	} {
		if got := ShellQuote(tc.in); got != tc.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
