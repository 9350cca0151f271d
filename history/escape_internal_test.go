package history

import (
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"empty", "", 10, ""},
		{"collapses white space", "  a \n\t b\r\n c  ", 120, "a b c"},
		{"unicode line separators", "a\u2028b\u0085c", 120, "a b c"},
		{"exactly max", "abcde", 5, "abcde"},
		{"one over", "abcdef", 5, "abcd…"},
		{"counts characters, not bytes", "ééééé", 5, "ééééé"},
		{"cuts characters", "éééééé", 5, "éééé…"},
		{"no space before the ellipsis", "abc defgh", 5, "abc…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oneLine(tt.in, tt.max); got != tt.want {
				t.Errorf("oneLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestInline(t *testing.T) {
	got := inline("a → b ⇒ ok\n### Session update", 120)
	want := "a -> b => ok ### Session update"
	if got != want {
		t.Errorf("inline = %q, want %q", got, want)
	}
	// Arrows drawn like the tool line's cannot fake its status either.
	got = inline("x) ⟹ ok · 1 line ⟶ ➔ ➜ ⇨ ￫", 120)
	if want := "x) => ok · 1 line -> -> -> => ->"; got != want {
		t.Errorf("inline = %q, want %q", got, want)
	}
	for _, r := range arrowRunes {
		if out := arrows.Replace(string(r)); out != "->" && out != "=>" {
			t.Errorf("arrow %q is not replaced: %q", r, out)
		}
	}
}

func TestFenceLen(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 3},
		{"no backticks", 3},
		{"`inline` and ``two``", 3},
		{"```\ncode\n```", 4},
		{"a ````` b", 6},
		{"``` ` ``", 4},
	}
	for _, tt := range tests {
		if got := fenceLen(tt.in); got != tt.want {
			t.Errorf("fenceLen(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestWriteFenceCannotBeClosedFromInside(t *testing.T) {
	for _, text := range []string{"```", "````\n```", "x\n`````\ny", "   ```", "```go"} {
		var sb strings.Builder
		writeFence(&sb, text)
		lines := strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n")
		open := lines[0]
		for _, l := range lines[1 : len(lines)-1] {
			if t2 := strings.TrimSpace(l); len(t2) >= len(open) && strings.Trim(t2, "`") == "" {
				t.Errorf("text %q: line %q would close fence %q", text, l, open)
			}
		}
		if lines[len(lines)-1] != open {
			t.Errorf("text %q: closing fence %q, want %q", text, lines[len(lines)-1], open)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a\r\nb", "a\nb"},
		{"a\rb", "a\nb"},
		{"a\r\r\nb", "a\n\nb"},
		{"bad \xff byte", "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTrimBlock(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"\n\n  \n    code\n  more  \n\n", "    code\n  more"},
		{"text", "text"},
	}
	for _, tt := range tests {
		if got := trimBlock(tt.in); got != tt.want {
			t.Errorf("trimBlock(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAttrValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plan-mode-context", "plan-mode-context"},
		{"a:b.c_d", "a:b.c_d"},
		{"", "_"},
		{`x" y>`, "x__y_"},
		{"é", "_"},
	}
	for _, tt := range tests {
		if got := attrValue(tt.in); got != tt.want {
			t.Errorf("attrValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLineCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{{"", 0}, {"a", 1}, {"a\n", 2}, {"a\nb", 2}, {"\n", 2}}
	for _, tt := range tests {
		if got := lineCount(tt.in); got != tt.want {
			t.Errorf("lineCount(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestCutAtKeepsCharacters(t *testing.T) {
	s := strings.Repeat("é", 100) // no line breaks: cut at characters
	for i := 1; i < len(s); i++ {
		h := cutAt(s, i, false)
		tl := cutAt(s, i, true)
		if !strings.HasPrefix(s, s[:h]) || !validUTF8(s[:h]) || !validUTF8(s[tl:]) {
			t.Fatalf("cut at %d splits a character: head %d, tail %d", i, h, tl)
		}
	}
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "?") == s }
