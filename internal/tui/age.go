package tui

import (
	"time"

	"github.com/vigil-dev/vigil/internal/words"
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

// Plural is [words.Plural].
func Plural(n int, noun string) string { return words.Plural(n, noun) }
