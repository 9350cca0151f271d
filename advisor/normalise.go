package advisor

import (
	"strings"
	"unicode"
)

// minContentWords is how many content words a note needs, after
// normalisation, to say something. A content word is any word that is not
// filler (articles, "please", "now", "just", ...) and not a bare
// acknowledgement ("ok", "done", "stop", "continue", "looks good", ...).
// With 2, "Stop.", "Done.", "Looks good, continue." and "Revert." are
// content-free, while "Run tests.", "Don't push." and "Revert auth.go."
// are not. A one-word note rarely tells the agent what to do; the tool
// result asks the advisor to say it in full.
const minContentWords = 2

// normalise reduces a note to the words that carry its meaning, joined by
// single spaces, so that notes differing only in case, white space,
// punctuation, filler words or trailing politeness compare equal. Letters
// and digits form words; apostrophes are dropped ("don't" is "dont");
// symbols such as < > = + are kept as words of their own, so "i < n" and
// "i > n" stay distinct; all other punctuation separates words.
func normalise(note string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range strings.ToLower(note) {
		switch {
		case r == '\'' || r == '\u2019':
			// inside a word: "don't" → "dont"
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			cur.WriteRune(r)
		case unicode.IsSymbol(r):
			flush()
			words = append(words, string(r))
		default:
			flush()
		}
	}
	flush()

	words = trimPoliteness(words)
	kept := words[:0]
	for _, w := range words {
		if !isFiller(w) {
			kept = append(kept, w)
		}
	}
	return kept
}

// trimPoliteness removes a trailing "thanks", "thank you" or "cheers",
// repeatedly.
func trimPoliteness(words []string) []string {
	for {
		n := len(words)
		switch {
		case n >= 2 && words[n-2] == "thank" && (words[n-1] == "you" || words[n-1] == "u"):
			words = words[:n-2]
		case n >= 1 && (words[n-1] == "thanks" || words[n-1] == "thx" || words[n-1] == "cheers" || words[n-1] == "ty"):
			words = words[:n-1]
		default:
			return words
		}
	}
}

// isFiller reports whether a word adds nothing to a note's meaning
// wherever it appears, so that "Run the tests now, please." and "run
// tests" are the same note.
func isFiller(w string) bool {
	switch w {
	case "a", "an", "the", "please", "pls", "plz", "kindly", "just", "now", "again",
		"still", "really", "actually", "simply", "immediately", "asap":
		return true
	}
	return false
}

// isAcknowledgement reports whether a word, alone, only acknowledges or
// waves on; it does not count as content.
func isAcknowledgement(w string) bool {
	switch w {
	case "ok", "okay", "k", "done", "stop", "continue", "proceed", "fine", "good", "great",
		"lgtm", "looks", "all", "noted", "agreed", "yes", "yep", "sure", "go", "ahead",
		"carry", "on", "keep", "going", "nothing", "add", "so", "far", "fyi", "note":
		return true
	}
	return false
}

// contentFree reports whether normalised words say nothing the agent can
// act on: a known empty phrase ("no issue", "no concerns", ...), once bare
// acknowledgements are set aside, or fewer than [minContentWords] content
// words.
func contentFree(words []string) bool {
	var content []string
	for _, w := range words {
		if !isAcknowledgement(w) {
			content = append(content, w)
		}
	}
	if len(content) < minContentWords {
		return true
	}
	switch strings.Join(content, " ") {
	case "no issue", "no issues", "no concern", "no concerns", "no problem", "no problems",
		"no change", "no changes", "no changes needed", "no action needed", "no comment",
		"no comments", "no objection", "no objections", "no advice", "no further advice",
		"no notes", "to me", "it up":
		return true
	}
	return false
}
