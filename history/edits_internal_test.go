package history

import (
	"slices"
	"testing"
)

// TestShellWords checks the quoting SWE-agent's commands use: Python's
// shlex.quote ('it'"'"'s'), double quotes with escapes, backslashes, and
// multi-line quoted text; an unterminated quote is not read.
func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{`a b  c`, []string{"a", "b", "c"}, true},
		{`--old_str 'it'"'"'s'`, []string{"--old_str", "it's"}, true},
		{`"a \"q\" \$x \n"`, []string{`a "q" $x \n`}, true},
		{`a\ b c\` + "\n" + `d`, []string{"a b", "cd"}, true},
		{"'line 1\nline 2' x", []string{"line 1\nline 2", "x"}, true},
		{`'' ""`, []string{"", ""}, true},
		{`'open`, nil, false},
		{`"open`, nil, false},
	} {
		got, ok := shellWords(c.in)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
