package rules

import (
	"strings"
	"testing"
)

func TestOutputSig(t *testing.T) {
	same := [][2]string{
		{"took 0.53s at 2024-05-01T10:00:00Z", "took 1.07s at 2025-12-31T23:59:59Z"},
		{"pid 4121 listening on :8080", "pid 77 listening on :9090"},
		{"commit 3f2a9c1d0e", "commit 9b8e7f6a5d"},
		{"object at 0x7f3a2b1c", "object at 0x55d0e1"},
		{"wrote /tmp/tmpa8x_2k/out.txt", "wrote /tmp/tmpzz91qq/out.txt"},
		{"  a \n\n b\t", "a b"},
	}
	for _, c := range same {
		if outputSig(c[0]) != outputSig(c[1]) {
			t.Errorf("outputSig(%q) != outputSig(%q)", c[0], c[1])
		}
	}
	differ := [][2]string{
		{"FAIL: test_add", "FAIL: test_sub"},
		{"ok", "OK"},
		{"a b", "ab"},
	}
	for _, c := range differ {
		if outputSig(c[0]) == outputSig(c[1]) {
			t.Errorf("outputSig(%q) == outputSig(%q)", c[0], c[1])
		}
	}
	if commandSig("sed -n 1,10p a") == commandSig("sed -n 2,10p a") {
		t.Error("commandSig ignores numbers")
	}
	long := strings.Repeat("x", 5000)
	if outputSig(long+"A") == outputSig(long+"B") || outputSig("A"+long) == outputSig("B"+long) {
		t.Error("outputSig misses the head or the tail of a long output")
	}
}

func TestOutputSigNormalisesIdempotently(t *testing.T) {
	// Property: normalising twice changes nothing, so a normalised form
	// and its source have the same signature whatever the numbers.
	for _, s := range []string{"a 1 b 22 c 333", "id 0xdeadbeef1 at 12:00", "/tmp/x/y 7"} {
		for _, n := range []string{"9", "12345", "0"} {
			if outputSig(s) != outputSig(strings.NewReplacer("1", n, "2", n, "3", n, "7", n).Replace(s)) {
				t.Errorf("changing digits of %q to %s changed its signature", s, n)
			}
		}
	}
}

func TestLastLines(t *testing.T) {
	out := "<returncode>1</returncode>\n<output>\nline 1\n\n  line 2  \nValueError: x\n</output>\n"
	got := lastLines(out, 2)
	if len(got) != 2 || got[0] != "line 2" || got[1] != "ValueError: x" {
		t.Errorf("lastLines = %q", got)
	}
	if got := lastLines("", 3); len(got) != 0 {
		t.Errorf("lastLines of nothing = %q", got)
	}
}

func TestExitCode(t *testing.T) {
	for out, want := range map[string]int{
		"<returncode>2</returncode>\n<output>x</output>": 2,
		"boom\n[exit code 127]":                          127,
		"Exit code 1\nerror":                             1,
		"output\nProcess exited with code 0":             0,
		"plain output":                                   -1,
		strings.Repeat("x", 4000) + "\n[exit code 3]":    3,
	} {
		got, ok := exitCode(out)
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("exitCode(%.40q) = %d, want %d", out, got, want)
		}
	}
}

func TestFailureBehindAPipe(t *testing.T) {
	for _, c := range []struct {
		cmd, out string
		want     bool
	}{
		{"python x.py 2>&1 | tail -5", "<returncode>0</returncode>\n<output>\nTraceback (most recent call last):\n  File \"x.py\", line 1\nNameError: name 'y' is not defined\n</output>", true},
		{"python -m pytest | tail -3", "<returncode>0</returncode>\n<output>\n== 1 failed, 2 passed in 0.1s ==\n</output>", true},
		{"python -m pytest | tail -3", "<returncode>0</returncode>\n<output>\n== 3 passed in 0.1s ==\n</output>", false},
		{"cat log.txt | tail -3", "<returncode>0</returncode>\n<output>\nValueError: logged earlier\n</output>", false},
	} {
		if got := act1("bash", map[string]any{"command": c.cmd}, c.out, false).Failed; got != c.want {
			t.Errorf("%q: failed = %v, want %v", c.cmd, got, c.want)
		}
	}
}

func TestEditRefusals(t *testing.T) {
	refused := act1("bash", map[string]any{"command": "edit 2:2\nimport binascii\nend_of_edit"},
		"Your proposed edit has introduced new syntax error(s). Please read this error message carefully.\nERRORS:\n- E999 IndentationError: unexpected indent\nYour changes have NOT been applied.", false)
	if !refused.Failed || refused.Kind != KindEdit {
		t.Errorf("a refused SWE-agent edit: failed %v kind %v", refused.Failed, refused.Kind)
	}
	applied := act1("bash", map[string]any{"command": "edit 2:2\nimport binascii\nend_of_edit"}, "[File: /r/a.py (20 lines total)]\n1:import os\n2:import binascii", false)
	if applied.Failed {
		t.Error("an applied edit failed")
	}
}

// normHashRef is normHash written the simple way, byte by byte: the
// reference the fast one must agree with.
func normHashRef(h uint64, s string, keepNumbers bool) uint64 {
	var n normBuf
	n.h = h
	space := false // a space is pending
	for i := 0; i < len(s); {
		c := s[i]
		if refClass[c] == refSpace {
			space = true
			i++
			continue
		}
		if space && n.started {
			n.put(' ')
		}
		space, n.started = false, true
		switch refClass[c] {
		case refWord:
			j := i + 1
			for j < len(s) && refClass[s[j]] == refWord {
				j++
			}
			w := s[i:j]
			if len(w) >= 3 && isHexID(w) {
				n.put('#')
			} else if keepNumbers || !hasDigit(w) {
				n.write(w)
			} else {
				for k := 0; k < len(w); k++ {
					d := w[k]
					if !keepNumbers && d >= '0' && d <= '9' {
						for k+1 < len(w) && w[k+1] >= '0' && w[k+1] <= '9' {
							k++
						}
						d = '0'
					}
					n.put(d)
				}
			}
			i = j
		case refSlash:
			if strings.HasPrefix(s[i:], "/tmp/") || strings.HasPrefix(s[i:], "/var/folders/") {
				// Keep the prefix, replace the next component.
				j := i + 1 + strings.IndexByte(s[i+1:], '/') + 1
				for k := i; k < j; k++ {
					n.put(s[k])
				}
				n.put('*')
				for j < len(s) && !isPathEnd(s[j]) {
					j++
				}
				i = j
				continue
			}
			n.put(c)
			i++
		default:
			n.put(c)
			i++
		}
	}
	return n.sum()
}

// The byte classes of normHashRef.
const (
	refOther = iota
	refSpace
	refWord
	refSlash
)

var refClass = func() (t [256]uint8) {
	for _, c := range " \t\n\r\f\v" {
		t[c] = refSpace
	}
	for c := 0; c < 256; c++ {
		if isWordByte(byte(c)) {
			t[c] = refWord
		}
	}
	t['/'] = refSlash
	return t
}()

// normSamples are texts with every case normHash normalises, at the
// edges of words, lines and its buffer.
func normSamples() []string {
	base := []string{"", " ", "  \n\t ", "a", " a", "a ", " a b  c\t\nd ", "x1", "1x", "abc123", "0x1f", "0x", "0xzz",
		"deadbeef1", "deadbeef", "1234567", "a1b2c3d4e5", "v1.2.3 at 12:30:00", "/tmp/abc/def", "/tmp/", "x/tmp/y z",
		"/var/folders/ab/cd", "a//b", "path/to/file.py:12", "ok 0.53s", "_a_1_", "é1 ü", "a\r\nb", "a  b", "tmp/x /tmp/q:3"}
	out := append([]string(nil), base...)
	for _, a := range base {
		for _, b := range base {
			out = append(out, a+b, a+" "+b, a+"\n"+b)
		}
	}
	long := ""
	for i := 0; len(long) < 2000; i++ {
		long += base[i%len(base)] + " "
		out = append(out, long)
	}
	return out
}

func TestNormHashMatchesReference(t *testing.T) {
	for _, s := range normSamples() {
		for _, keep := range []bool{false, true} {
			if got, want := normHash(fnvOffset, s, keep), normHashRef(fnvOffset, s, keep); got != want {
				t.Errorf("normHash(%q, %v) differs from the reference", s, keep)
			}
			for k := KindOther; k <= KindShell+1; k++ {
				if got, want := actionSig(k, s), commandSig(k.String()+"\x00"+s); got != want {
					t.Errorf("actionSig(%v, %q) differs from commandSig of the joined text", k, s)
				}
			}
		}
	}
}

func FuzzNormHash(f *testing.F) {
	for _, s := range normSamples()[:40] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, keep := range []bool{false, true} {
			if got, want := normHash(7, s, keep), normHashRef(7, s, keep); got != want {
				t.Errorf("normHash(%q, %v) differs from the reference", s, keep)
			}
			if got, want := normHashAfter(7, "shell\x00", s, keep), normHashRef(7, "shell\x00"+s, keep); got != want {
				t.Errorf("normHashAfter(shell, %q, %v) differs from the reference", s, keep)
			}
		}
	})
}
