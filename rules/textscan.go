package rules

import (
	"bytes"
	"math/bits"
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

// keywords is a list of words looked for in lowered texts, with a table
// of their first bytes for scanning short texts in one pass.
type keywords struct {
	words []string
	// first has, for each byte, a bit for each word that starts with it.
	first [256]uint32
	// onePass is set when a single pass finds the same occurrences as
	// looking for each word in turn: at most 32 words, none empty and
	// none the start of another (so that no two words occur at the same
	// position).
	onePass bool
}

func newKeywords(words ...string) *keywords {
	k := &keywords{words: words, onePass: len(words) <= 32}
	for i, w := range words {
		if w == "" {
			k.onePass = false
			continue
		}
		k.first[w[0]] |= 1 << i
		for j, v := range words {
			if i != j && strings.HasPrefix(v, w) {
				k.onePass = false
			}
		}
	}
	return k
}

// maxHits is how many occurrences keywordHits reports at most.
const maxHits = 64

// onePassLimit is the length under which a text is scanned in one pass
// rather than once for each word (which is faster for long texts).
const onePassLimit = 512

type keywordHit struct {
	i int
	w string
}

// keywordHits calls f with the position of every occurrence in lower (a
// lowered text) of any of the words, in order of position, at most
// maxHits of them: each word's occurrences that do not overlap, gathered
// word after word. f returns false to stop.
func keywordHits(lower []byte, kw *keywords, f func(i int, w string) bool) {
	var buf [maxHits]keywordHit
	hits, ok := buf[:0], false
	if kw.onePass && len(lower) < onePassLimit {
		hits, ok = keywordHitsOnePass(hits, lower, kw)
	}
	if !ok {
		hits = hits[:0]
		for _, w := range kw.words {
			for off := 0; len(hits) < cap(hits); {
				j := bytes.Index(lower[off:], []byte(w))
				if j < 0 {
					break
				}
				hits = append(hits, keywordHit{off + j, w})
				off += j + len(w)
			}
		}
		slices.SortFunc(hits, func(a, b keywordHit) int { return a.i - b.i })
	}
	for _, h := range hits {
		if !f(h.i, h.w) {
			return
		}
	}
}

// keywordHitsOnePass finds the occurrences keywordHits reports in one
// pass over lower, in order of position; false when there are more than
// fit in hits, whose choice depends on the words' order.
func keywordHitsOnePass(hits []keywordHit, lower []byte, kw *keywords) ([]keywordHit, bool) {
	// next is, for each word, where its next occurrence may start: after
	// the end of the last.
	var next [32]int
	for i, c := range lower {
		for m := kw.first[c]; m != 0; m &= m - 1 {
			wi := bits.TrailingZeros32(m)
			w := kw.words[wi]
			if i < next[wi] || !bytes.HasPrefix(lower[i:], []byte(w)) {
				continue
			}
			if len(hits) == cap(hits) {
				return hits, false
			}
			hits = append(hits, keywordHit{i, w})
			next[wi] = i + len(w)
		}
	}
	return hits, true
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
func findNear(re *regexp.Regexp, lower []byte, words *keywords, before, after int) string {
	lo, hi := findNearIndex(re, lower, words, before, after)
	return string(lower[lo:hi])
}

// findNearIndex is findNear returning the match's bounds, which are the
// same in the original text (0, 0 when there is none).
func findNearIndex(re *regexp.Regexp, lower []byte, words *keywords, before, after int) (int, int) {
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

// harnessText reports whether a message before a step is a harness's block
// (<environment_context>, <skills_instructions>) or a long template rather
// than something the user said about this task.
func harnessText(t string) bool {
	return strings.HasPrefix(t, "<") || len(t) > 4<<10
}
