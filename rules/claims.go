package rules

import (
	"regexp"
	"strings"
)

// successClaim matches a sentence that says the work succeeded: tests
// pass, the issue is fixed, the fix works.
var successClaim = regexp.MustCompile(`(?i)\b(?:(?:all|the|\d+) (?:\w+ )?(?:tests?|checks?|specs?) (?:now )?(?:pass(?:es|ed)?|are passing|is passing|succeed(?:s|ed)?|are green|ran successfully)|all (?:tests|checks) (?:pass(?:ed)?|are green)|all green|tests? (?:now )?pass(?:es)?\b|(?:the |this |that )?(?:issue|bug|problem|error|regression) (?:is|has been|was|is now|has now been) (?:now )?(?:fixed|resolved|solved)|(?:the |our |my )?fix (?:works|is working|worked)|successfully (?:fixed|resolved|solved)|everything works|works (?:correctly|as expected) now)\b`)

// hedge matches words that make a sentence conditional, a plan or a
// question rather than a claim.
var hedge = regexp.MustCompile(`(?i)(\b(?:if|once|when|whether|should|would|could|will|might|may|let's|let me|to (?:verify|check|confirm|ensure|see|make sure)|ensure|expect(?:ed|ing)?|hopefully|until|need to|want to|going to|not|no longer|didn't|doesn't|don't|isn't|aren't|wasn't|weren't|haven't|hasn't|fail(?:s|ed|ing)?|except|but)\b|\?)`)

// claimIn returns the first sentence of text that claims success, or "".
func claimIn(text string) string {
	if text == "" || !successClaim.MatchString(text) {
		return ""
	}
	for _, s := range sentences(text) {
		if successClaim.MatchString(s) && !hedge.MatchString(s) {
			return s
		}
	}
	return ""
}

// sentences splits text at sentence ends and line breaks.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := c == '\n' || (c == '.' || c == '!' || c == '?') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n')
		if end {
			if s := strings.TrimSpace(text[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
