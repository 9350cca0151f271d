package tui

import (
	"fmt"
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
// "0 lines", "3 reviews". It adds an s; nouns that take another plural
// are not asked of it.
func Plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
