package agent

import (
	"html"
	"regexp"
	"sync"

	"github.com/vigil-dev/vigil/session"
)

// Advisory is one note of an advisor's text as a reader shows it: the
// roster's advisor that wrote it ("" for the single advisor), its
// severity ("" when none was given) and its body, unescaped.
type Advisory struct {
	Advisor, Severity, Body string
}

var advisoryRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<advisory(?: advisor="([^"]*)")?(?: severity="([^"]*)")?[^>]*>\n?(.*?)\n?</advisory>`)
})

// ParseAdvisories reads the notes of a custom entry of [CustomAdvisor]'s
// kinds, as advisor.FormatAdvisories wrote them, for user interfaces that
// show the notes rather than their markup; a text with none gives none.
func ParseAdvisories(s string) []Advisory {
	var out []Advisory
	for _, m := range advisoryRe().FindAllStringSubmatch(s, -1) {
		out = append(out, Advisory{Advisor: html.UnescapeString(m[1]), Severity: html.UnescapeString(m[2]), Body: html.UnescapeString(m[3])})
	}
	return out
}

// IsAdvisorNote reports whether a custom type is an advisor's note:
// [CustomAdvisor], "advisor:KIND" or "advisor-KIND".
func IsAdvisorNote(customType string) bool {
	return isAdvisorNote(&session.Custom{CustomType: customType})
}
