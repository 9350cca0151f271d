package tui

import (
	"fmt"
	"strings"
	"time"
)

// Age says how long ago something happened, d before now, in the words
// a person uses: "just now", "1 minute ago", "3 hours ago", "2 days ago".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return ago(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return ago(int(d/time.Hour), "hour")
	case d < 60*24*time.Hour:
		return ago(int(d/(24*time.Hour)), "day")
	default:
		return ago(int(d/(30*24*time.Hour)), "month")
	}
}

func ago(n int, unit string) string {
	return Plural(n, unit) + " ago"
}

// Plural is n and the noun, in the plural unless n is 1: "1 line",
// "0 lines", "3 reviews", "2 matches" (es after s, x, ch and sh). Nouns
// with another plural are not asked of it.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	suffix := "s"
	for _, end := range []string{"s", "x", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			suffix = "es"
		}
	}
	return fmt.Sprintf("%d %s%s", n, noun, suffix)
}
