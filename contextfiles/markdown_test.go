package contextfiles

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestImportTokens(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"whole line", "@docs/a.md\n", []string{"@docs/a.md"}},
		{"after space", "see @a.md for more", []string{"@a.md"}},
		{"after tab", "\t@a.md", []string{"@a.md"}},
		{"several", "@a.md @b.md", []string{"@a.md", "@b.md"}},
		{"trailing punctuation", `see @a.md. and (@b.md) or "@c.md"`, []string{"@a.md"}},
		{"closing paren stripped", "list: @a.md), @b.md;", []string{"@a.md", "@b.md"}},
		{"home", "@~/notes.md", []string{"@~/notes.md"}},
		{"absolute", "@/etc/hosts", []string{"@/etc/hosts"}},
		{"parent", "@../x.md", []string{"@../x.md"}},
		{"email", "mail me@example.com", nil},
		{"git remote", "git@github.com:o/r.git", nil},
		{"lone at", "at @ noon", nil},
		{"at then symbol", "@@a.md @#x @*y", nil},
		{"only punctuation", "@. @.. @)", nil},
		{"inline code", "run `@a.md` then @b.md", []string{"@b.md"}},
		{"double backticks", "``code with ` and @a.md`` @b.md", []string{"@b.md"}},
		{"unmatched backtick is text", "a ` @a.md", []string{"@a.md"}},
		{"token stops at backtick", "@a.md`x`", []string{"@a.md"}},
		{"crlf", "@a.md\r\n", []string{"@a.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range importTokens(tt.line) {
				got = append(got, tt.line[s.start:s.end])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("importTokens(%q) (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestFence(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string // one letter per line: f for fence, t for text
	}{
		{"backticks", "a\n```\nb\n```\nc\n", "tffft"},
		{"tildes with info", "~~~go\nb\n~~~\nc\n", "ffft"},
		{"longer closing", "````\n```\nb\n`````\nc\n", "fffft"},
		{"other char does not close", "```\n~~~\nb\n```\n", "ffff"},
		{"closing with text is not closing", "```\n``` x\nb\n```\nc\n", "fffft"},
		{"indented", "  ```\n  b\n  ```\nc\n", "ffft"},
		{"two backticks are not a fence", "``\nb\n", "tt"},
		{"backtick in info string is inline code", "``` x ` y\nb\n", "tt"},
		{"unclosed runs to the end", "```\nb\nc\n", "fff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f fence
			var got strings.Builder
			for line := range strings.Lines(tt.text) {
				if f.step(line) {
					got.WriteByte('f')
				} else {
					got.WriteByte('t')
				}
			}
			if got.String() != tt.want {
				t.Errorf("got %s, want %s", got.String(), tt.want)
			}
		})
	}
}
