package rules

import (
	"regexp"
	"strings"
	"sync"
)

// successClaim matches a sentence that says the work succeeded: tests
// pass, the issue is fixed, the fix works.
var successClaim = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:(?:all|the|\d+) (?:\w+ )?(?:tests?|checks?|specs?) (?:now )?(?:pass(?:es|ed)?|are passing|is passing|succeed(?:s|ed)?|are green|ran successfully)|all (?:tests|checks) (?:pass(?:ed)?|are green)|all green|tests? (?:now )?pass(?:es)?\b|(?:the |this |that )?(?:issue|bug|problem|error|regression) (?:is|has been|is now|has now been) (?:now )?(?:fixed|resolved|solved)|(?:the |our |my )?fix (?:works|is working|worked)|successfully (?:fixed|resolved|solved)|everything works|works (?:correctly|as expected) now)\b`)
})

// hedge matches words that make a sentence conditional, a plan or a
// question rather than a claim.
var hedge = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\b(?:if|once|when|whether|should|would|could|will|might|may|let's|let me|to (?:verify|check|confirm|ensure|see|make sure)|ensure|expect(?:ed|ing)?|hopefully|until|need to|want to|going to|not|no longer|didn't|doesn't|don't|isn't|aren't|wasn't|weren't|haven't|hasn't|fail(?:s|ed|ing)?|except|but)\b|\?)`)
})

// claimIn returns the first sentence of text that claims success, or "";
// lower is text lowered by lowerInto. Only the words around the keywords
// every claim contains are matched, and only sentences with a match are
// checked for hedges.
func claimIn(text string, lower []byte) string {
	claim := ""
	done := -1 // end of the last sentence looked at
	keywordHits(lower, claimWords, func(i int, w string) bool {
		if i < done || !successClaim().Match(lower[max(0, i-60):min(len(lower), i+len(w)+40)]) {
			return true
		}
		lo, hi := sentenceAt(lower, i, 300)
		done = hi
		if successClaim().Match(lower[lo:hi]) && !hedge().Match(lower[lo:hi]) {
			claim = text[lo:hi]
			return false
		}
		return true
	})
	return strings.TrimSpace(claim)
}

// claimWords are words every success claim contains.
var claimWords = newKeywords("pass", "fixed", "resolved", "solved", "work", "green", "succe")
