package history

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// clean makes text safe to place in the output: invalid UTF-8 becomes
// U+FFFD and every line ending becomes "\n". A lone "\r" would end a line
// for a markdown reader while looking like part of one to us, so it is
// normalised before anything counts lines or looks for fences. It returns
// s itself when nothing needs changing.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

// blank reports whether s holds nothing but white space.
func blank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// trimBlock removes the blank lines around a block of text and the white
// space at its end, keeping the first line's indentation (code).
func trimBlock(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || !blank(s[:i]) {
			return s
		}
		s = s[i+1:]
	}
}

// fenceLen returns the length of the backtick fence that can hold s: one
// more than its longest run of backticks, and at least three. No line of s
// can then close the fence, whatever it holds (CommonMark closes a fence
// only with a run at least as long as the opening one).
func fenceLen(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return max(3, longest+1)
}

// writeFence writes text, already cleaned, as a fenced block. Everything
// that came from a user, a model or a tool and may span lines goes through
// here: inside the fence it is data, and nothing in it reads as a heading,
// a label or a tag of ours.
func writeFence(sb *strings.Builder, text string) {
	n := fenceLen(text)
	writeBackticks(sb, n)
	sb.WriteByte('\n')
	sb.WriteString(text)
	sb.WriteByte('\n')
	writeBackticks(sb, n)
	sb.WriteByte('\n')
}

// writeFenceInfo is writeFence with an info string after the opening
// fence ("diff"), which says what the block holds; info is the renderer's
// own, never foreign text.
func writeFenceInfo(sb *strings.Builder, text, info string) {
	n := fenceLen(text)
	writeBackticks(sb, n)
	sb.WriteString(info)
	sb.WriteByte('\n')
	sb.WriteString(text)
	sb.WriteByte('\n')
	writeBackticks(sb, n)
	sb.WriteByte('\n')
}

func writeBackticks(sb *strings.Builder, n int) {
	for range n {
		sb.WriteByte('`')
	}
}

// oneLine collapses every run of white space (line breaks included) to one
// space and trims the ends. If the result is longer than max characters it
// keeps the first max-1 and appends "…".
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
		}
		n++
	}
	return s
}

// inline makes foreign text fit inside one of the renderer's own lines:
// one line, bounded, with the arrows that separate a tool line's parts,
// and the arrows a model may take for them, replaced, so a tool argument
// cannot pose as a status.
func inline(s string, max int) string {
	s = oneLine(clean(s), max)
	if strings.ContainsAny(s, arrowRunes) {
		s = arrows.Replace(s)
	}
	return s
}

// arrowRunes are the arrows inline replaces: the tool line's own "→" and
// "⇒", and single and double arrows drawn like them (long, heavy, open,
// halfwidth).
const arrowRunes = "→⟶➔➜➝➞⇾⭢￫" + "⇒⟹⇨⇛⤇"

var arrows = strings.NewReplacer(
	"→", "->", "⟶", "->", "➔", "->", "➜", "->", "➝", "->", "➞", "->", "⇾", "->", "⭢", "->", "￫", "->",
	"⇒", "=>", "⟹", "=>", "⇨", "=>", "⇛", "=>", "⤇", "=>",
)

// attrValue makes a name fit in a tag attribute or a bracketed label: only
// letters, digits and ._:- are kept; anything else becomes "_".
func attrValue(s string) string {
	ok := s != ""
	for _, r := range s {
		if !attrRune(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	if s == "" {
		return "_"
	}
	b := []rune(s)
	for i, r := range b {
		if !attrRune(r) {
			b[i] = '_'
		}
	}
	return string(b)
}

func attrRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == ':' || r == '-')
}

// lineCount is 0 for an empty string, otherwise the number of "\n"
// separated parts.
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// plural writes "1 line", "2 lines".
func plural(n int, word string) string {
	s := strconv.Itoa(n) + " " + word
	if n != 1 {
		s += "s"
	}
	return s
}
