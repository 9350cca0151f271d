// Package words holds the small helpers of English that vigil's messages
// share across packages.
package words

import (
	"fmt"
	"strings"
)

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
