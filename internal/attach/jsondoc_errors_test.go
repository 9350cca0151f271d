package attach

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// The errors for files that are not JSON name the place and say what was
// wanted there, at the end of a file that stops early too.
func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "s.json:1:1: unexpected end of file: want a value"},
		{"  ", "s.json:1:3: unexpected end of file: want a value"},
		{"{", "s.json:1:2: unexpected end of file: want a key in double quotes"},
		{`{"a"`, "s.json:1:5: unexpected end of file: want ':' after the key"},
		{`{"a":`, "s.json:1:6: unexpected end of file: want a value"},
		{`{"a":1`, "s.json:1:7: unexpected end of file: want ',' or '}'"},
		{"[1", "s.json:1:3: unexpected end of file: want ',' or ']'"},
		{"[1,", "s.json:1:4: unexpected end of file: want a value"},
		{`{"a":1,`, "s.json:1:8: unexpected end of file: want a key in double quotes"},
		{`"abc`, "s.json:1:1: unterminated string"},
		{`"ab\"c`, "s.json:1:1: unterminated string"},
		{`"ab\\"c`, "s.json:1:7: unexpected 'c' after the top-level value"},
		{`"a\`, "s.json:1:1: unterminated string"},
		{`"\u12`, `s.json:1:2: bad \u escape in a string`},
		{`{"a": tr`, "s.json:1:7: unexpected 't': want a value"},
		{`{"a": t1}`, "s.json:1:7: unexpected 't': want a value"},
		{`{"a": -`, "s.json:1:7: bad number"},
		{`{"a": 1e+`, "s.json:1:7: bad number"},
		{`{"a": 1.x}`, "s.json:1:7: bad number"},
		{"[-]", "s.json:1:2: bad number"},
		{`{"a": 01}`, "s.json:1:8: unexpected '1': want ',' or '}'"},
		{`{"a" 1}`, "s.json:1:6: unexpected '1': want ':' after the key"},
		{`{"a": "\q"}`, `s.json:1:8: bad escape \q in a string`},
		{`{"a": "\u12x4"}`, `s.json:1:8: bad \u escape in a string`},
		{`{"a":]`, "s.json:1:6: unexpected ']': want a value"},
		{`{"a":1,]`, "s.json:1:8: unexpected ']': want a key in double quotes"},
		{"[1,]", "s.json:1:4: a comma before ']': JSON allows no trailing comma"},
		{"[1 2]", "s.json:1:4: unexpected '2': want ',' or ']'"},
		{"[truex]", "s.json:1:6: unexpected 'x': want ',' or ']'"},
		{"{\"a\": \"é\x7f\x02\"}", "s.json:1:10: a control character (0x02) in a string: write it as an escape"},
		{"{\"a\": \"\xff\"} x", "s.json:1:12: unexpected 'x' after the top-level value"},
		{"\xff", "s.json:1:1: unexpected byte 0xff: want a value"},
		{"/* c */ {}", "s.json:1:1: a comment (JSON has none; these files must be plain JSON): want a value"},
	} {
		if _, err := parseDocument("s.json", []byte(tc.in)); err == nil || err.Error() != tc.want {
			t.Errorf("parse %q: got %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

// FuzzSyntaxError checks that a file that is not JSON gets an error at a
// place inside it (or just after its end), and one that is gets none.
func FuzzSyntaxError(f *testing.F) {
	for _, s := range []string{"", "{", `{"a": "\u12`, `{"a": tr`, "[1,]", "{\n  // x\n}", `"a\`, "\ufeff{}", `{"a": 1.}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseDocument("f.json", data)
		if err == nil {
			return
		}
		var ye *yamlfile.Error
		if !errors.As(err, &ye) || ye.Msg == "" {
			t.Fatalf("error %v is not a located one", err)
		}
		lines := bytes.Split(data, []byte("\n"))
		if ye.Line < 1 || ye.Line > len(lines) {
			t.Fatalf("%v: line outside the file of %d lines", err, len(lines))
		}
		if n := utf8.RuneCount(lines[ye.Line-1]); ye.Column < 1 || ye.Column > n+1 {
			t.Fatalf("%v: column outside the line of %d characters", err, n)
		}
	})
}
