package rules

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// Long texts (a model's reasoning, a task prompt of many kilobytes) are
// never matched whole against regular expressions, whose cost grows with
// the text: the text is lowered to ASCII lower case once, the keywords
// every match must contain are found with strings.Index, and the
// expressions (written in lower case) run only on small windows around
// them.

// lowerInto writes s with ASCII letters in lower case into buf, reusing
// its memory, and returns it; other bytes, and so every position, stay as
// they are.
func lowerInto(buf []byte, s string) []byte {
	if cap(buf) > 256<<10 && len(s) < 64<<10 {
		buf = nil // do not keep a huge buffer for small texts
	}
	buf = append(buf[:0], s...)
	for i, c := range buf {
		if c >= 'A' && c <= 'Z' {
			buf[i] = c + 'a' - 'A'
		}
	}
	return buf
}

// keywordHits calls f with the position of every occurrence in lower (a
// lowered text) of any of words, in order of position, at most 64 of
// them. f returns false to stop.
func keywordHits(lower []byte, words []string, f func(i int, w string) bool) {
	type hit struct {
		i int
		w string
	}
	var buf [64]hit
	hits := buf[:0]
	for _, w := range words {
		for off := 0; len(hits) < cap(hits); {
			j := bytes.Index(lower[off:], []byte(w))
			if j < 0 {
				break
			}
			hits = append(hits, hit{off + j, w})
			off += j + len(w)
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.i - b.i })
	for _, h := range hits {
		if !f(h.i, h.w) {
			return
		}
	}
}

// hasAny reports whether lower contains any of words.
func hasAny(lower []byte, words []string) bool {
	for _, w := range words {
		if bytes.Contains(lower, []byte(w)) {
			return true
		}
	}
	return false
}

// findNear returns the first match of re (a lower-case expression) in
// lower (a lowered text) that lies within before bytes before and after
// bytes after an occurrence of one of words; "" when there is none.
func findNear(re *regexp.Regexp, lower []byte, words []string, before, after int) string {
	lo, hi := findNearIndex(re, lower, words, before, after)
	return string(lower[lo:hi])
}

// findNearIndex is findNear returning the match's bounds, which are the
// same in the original text (0, 0 when there is none).
func findNearIndex(re *regexp.Regexp, lower []byte, words []string, before, after int) (int, int) {
	lo, hi := 0, 0
	keywordHits(lower, words, func(i int, w string) bool {
		wlo, whi := max(0, i-before), min(len(lower), i+len(w)+after)
		if m := re.FindIndex(lower[wlo:whi]); m != nil {
			lo, hi = wlo+m[0], wlo+m[1]
			return false
		}
		return true
	})
	return lo, hi
}

// sentenceAt returns the bounds of the sentence of text around position
// i: from after the previous sentence end or line break to the next, at
// most limit bytes on each side.
func sentenceAt(text []byte, i, limit int) (int, int) {
	lo := i
	for lo > 0 && i-lo < limit {
		c := text[lo-1]
		if c == '\n' || (c == '.' || c == '!' || c == '?') && lo < len(text) && (text[lo] == ' ' || text[lo] == '\n') {
			break
		}
		lo--
	}
	hi := i
	for hi < len(text) && hi-i < limit {
		c := text[hi]
		hi++
		if c == '\n' {
			hi--
			break
		}
		if (c == '.' || c == '!' || c == '?') && (hi == len(text) || text[hi] == ' ' || text[hi] == '\n') {
			break
		}
	}
	return lo, hi
}

// lastIndex is strings.LastIndex for texts that rarely contain sub, or
// contain it a few times: it jumps from one occurrence to the next with
// strings.Index, which is much faster than LastIndex's backward scan.
func lastIndex(s, sub string) int {
	if sub == "" {
		return len(s)
	}
	i := strings.Index(s, sub)
	if i < 0 {
		return i
	}
	for {
		j := strings.Index(s[i+1:], sub)
		if j < 0 {
			return i
		}
		i += 1 + j
	}
}
