package rules

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestLastIndex(t *testing.T) {
	texts := []string{"", "a", "aaaa", "abcabcab", "No module named x\nNo module named y", "xx No module named", "ababab"}
	subs := []string{"", "a", "aa", "ab", "abc", "No module named", "b", "zz"}
	for _, s := range texts {
		for _, sub := range subs {
			if got, want := lastIndex(s, sub), strings.LastIndex(s, sub); got != want {
				t.Errorf("lastIndex(%q, %q) = %d, want %d", s, sub, got, want)
			}
		}
	}
}

func TestExitCodeMarkersNameACodeOrStatus(t *testing.T) {
	for _, m := range exitMarkers {
		if !strings.Contains(m.prefix, "code") && !strings.Contains(m.prefix, "status") {
			t.Errorf("marker %q names neither a code nor a status; exitCode would skip it", m.prefix)
		}
	}
}

// keywordHitsRef is keywordHits as it was first written, looking for
// each word in turn: the reference for the one-pass scan.
func keywordHitsRef(lower []byte, words []string) []keywordHit {
	var hits []keywordHit
	for _, w := range words {
		for off := 0; len(hits) < maxHits; {
			j := bytes.Index(lower[off:], []byte(w))
			if j < 0 {
				break
			}
			hits = append(hits, keywordHit{off + j, w})
			off += j + len(w)
		}
	}
	slices.SortFunc(hits, func(a, b keywordHit) int { return a.i - b.i })
	return hits
}

// keywordLists are the lists the detectors use, and some that a single
// pass cannot serve.
var keywordLists = []*keywords{claimWords, testWords, configWords, creepWords, flagWords, markerWords,
	newKeywords("aa", "a"), newKeywords("||", "|"), newKeywords("ab", "ba", "aba")}

func checkKeywordHits(t *testing.T, text string) {
	t.Helper()
	lower := lowerInto(nil, text)
	for _, kw := range keywordLists {
		var got []keywordHit
		keywordHits(lower, kw, func(i int, w string) bool {
			got = append(got, keywordHit{i, w})
			return true
		})
		if want := keywordHitsRef(lower, kw.words); !slices.Equal(got, want) {
			t.Fatalf("keywordHits(%q, %q) = %v, want %v", text, kw.words, got, want)
		}
	}
}

func TestKeywordHits(t *testing.T) {
	for _, s := range keywordSamples() {
		checkKeywordHits(t, s)
	}
}

func keywordSamples() []string {
	return []string{"", "All tests pass; the fix works.", "|||| x || true", "skip skipskip --skip-tests", "aaaa abab ababa",
		strings.Repeat("pass ", 70), strings.Repeat("work green ", 20) + "resolved", strings.Repeat("x", 600) + " tests pass",
		"set +e; pytest -k 'not slow' --deselect a --no-verify", "@pytest.mark.skip # noqa eslint-disable", "config test CONFIG Test"}
}

func FuzzKeywordHits(f *testing.F) {
	for _, s := range keywordSamples() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkKeywordHits(t, s) })
}
