package rules

import (
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

// lowerASCII returns s with ASCII letters in lower case; other bytes,
// and so every position, stay as they are.
func lowerASCII(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// keywordHits calls f with the position of every occurrence in lower (a
// lowered text) of any of words, in order of position, at most 64 of
// them. f returns false to stop.
func keywordHits(lower string, words []string, f func(i int, w string) bool) {
	type hit struct {
		i int
		w string
	}
	var buf [64]hit
	hits := buf[:0]
	for _, w := range words {
		for off := 0; len(hits) < cap(hits); {
			j := strings.Index(lower[off:], w)
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
func hasAny(lower string, words []string) bool {
	for _, w := range words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// findNear returns the first match of re (a lower-case expression) in
// lower (a lowered text) that lies within before bytes before and after
// bytes after an occurrence of one of words; "" when there is none. The
// match is returned from lower; its position is the same in the original.
func findNear(re *regexp.Regexp, lower string, words []string, before, after int) string {
	lo, hi := findNearIndex(re, lower, words, before, after)
	return lower[lo:hi]
}

// findNearIndex is findNear returning the match's bounds (0, 0 when none).
func findNearIndex(re *regexp.Regexp, lower string, words []string, before, after int) (int, int) {
	lo, hi := 0, 0
	keywordHits(lower, words, func(i int, w string) bool {
		wlo, whi := max(0, i-before), min(len(lower), i+len(w)+after)
		if m := re.FindStringIndex(lower[wlo:whi]); m != nil {
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
func sentenceAt(text string, i, limit int) (int, int) {
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
