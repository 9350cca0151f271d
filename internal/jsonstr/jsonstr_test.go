package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSafeRun checks the eight-bytes-at-a-time scan against the table,
// with each kind of byte that ends a run at each position.
func TestSafeRun(t *testing.T) {
	for _, stop := range []byte{'"', '\\', 0, 0x1f, 0x80, 0xff} {
		for n := range 40 {
			for at := range n + 1 {
				b := bytes.Repeat([]byte{'a'}, n)
				// Bytes near the stopping ones that must not stop a run.
				for i := range b {
					b[i] = " !#[]^_~\x7fa"[i%10]
				}
				want := n
				if at < n {
					b[at] = stop
					want = at
				}
				for from := range min(at, 3) + 1 {
					if got := SafeRun(b, from); got != max(want, from) {
						t.Fatalf("SafeRun(%q, %d) = %d, want %d", b, from, got, want)
					}
				}
			}
		}
	}
}

// checkAgainstStd checks Scan and AppendUnquote on b, a quote and what
// follows, against encoding/json.
func checkAgainstStd(t *testing.T, b []byte) {
	t.Helper()
	s, res := Scan(b, 0)
	switch res {
	case OK:
		quoted := b[:s.End+1]
		var want string
		if err := json.Unmarshal(quoted, &want); err != nil {
			t.Fatalf("Scan accepts %q, encoding/json refuses it: %v", quoted, err)
		}
		body := quoted[1:s.End]
		if s.Escaped != bytes.ContainsRune(body, '\\') {
			t.Fatalf("%q: Escaped = %v", quoted, s.Escaped)
		}
		// The fast path takes a body as it is when it has neither an
		// escape nor a byte of 0x80 or more.
		if high := bytes.ContainsFunc(body, func(r rune) bool { return r >= 0x80 }); s.High != high {
			t.Fatalf("%q: High = %v", quoted, s.High)
		}
		if got := string(AppendUnquote([]byte("x"), body)); got != "x"+want {
			t.Fatalf("AppendUnquote(%q) = %q, want %q", body, got[1:], want)
		}
	case Short:
		if json.Valid(b) {
			t.Fatalf("Scan finds %q short, encoding/json takes it", b)
		}
		// Whatever comes after a short string cannot make it bad.
	case Bad:
		for end := 1; end <= len(b); end++ {
			if json.Valid(b[:end]) {
				t.Fatalf("Scan finds %q bad, encoding/json takes %q", b, b[:end])
			}
		}
	}
}

func TestScanAndUnquote(t *testing.T) {
	for _, c := range []string{
		`""`, `"plain"`, `"tab\there"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u20ac"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`, `"\ud83dx"`, "\"caf\xc3\xa9\"", "\"bad \xff utf8\"",
		`"short`, `"\`, `"\u12`, `"\x"`, "\"ctl \x01\"", `"\u12g4"`, `"a" trailing`,
		`"` + string(bytes.Repeat([]byte("abcdefgh"), 9)) + `\n"`,
	} {
		checkAgainstStd(t, []byte(c))
	}
}

func FuzzScanAndUnquote(f *testing.F) {
	for _, c := range []string{`"plain"`, `"\u00e9\ud83d\ude00"`, "\"\xff\"", `"\ud83d\u0041"`, `"ab\`} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgainstStd(t, append([]byte{'"'}, b...))
	})
}
