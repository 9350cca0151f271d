package tools

import (
	"fmt"
	"strings"
)

// Bounds that keep the near-match search cheap: it runs only on an error
// path, and a slow hint is worse than none.
const (
	nearMaxCells   = 5_000_000  // lines × old_text lines for the whitespace check
	nearMaxLines   = 20_000     // file lines for the similarity check
	nearMaxWork    = 20_000_000 // edit-distance cells over all lines
	nearMaxLineLen = 400        // longest line compared by edit distance
	nearMinSimilar = 0.6        // weakest similarity worth reporting
	nearShowLines  = 8          // most lines of the file quoted back
)

// nearMatch explains, when it can do so cheaply, why oldText was not found
// in content: it carries read's line numbers, it matches when whitespace is
// ignored, or one of the file's lines is close to its first line. The
// result starts with "; " or is empty.
func nearMatch(content, oldText string) string {
	oldLines := nonBlankSpan(splitLines(oldText))
	if len(oldLines) == 0 {
		return "; old_text holds only whitespace"
	}
	numbered := true
	for _, l := range oldLines {
		if strings.TrimSpace(l) != "" && !hasLineNumber(l) {
			numbered = false
		}
	}
	if numbered {
		return "; old_text seems to include the line numbers read shows (a number and a tab at the start of each line); leave them out"
	}
	fileLines := splitLines(content)
	if len(fileLines)*len(oldLines) <= nearMaxCells {
		if at := findIgnoringSpace(fileLines, oldLines); at >= 0 {
			end := at + len(oldLines)
			return fmt.Sprintf("; it matches lines %d-%d if whitespace is ignored, so check indentation and spacing; the file has there:\n%s",
				at+1, end, quoteLines(fileLines, at, end))
		}
	}
	if len(fileLines) > nearMaxLines {
		return ""
	}
	want := strings.TrimSpace(oldLines[0])
	if len(want) > nearMaxLineLen {
		return ""
	}
	best, bestScore := -1, 0.0
	work := 0
	for i, l := range fileLines {
		got := strings.TrimSpace(l)
		if len(got) > nearMaxLineLen || got == "" {
			continue
		}
		if got == want {
			best, bestScore = i, 1
			break
		}
		// Cheap bound first: lengths too far apart cannot be similar enough.
		longer := max(len(got), len(want))
		if float64(abs(len(got)-len(want))) > (1-nearMinSimilar)*float64(longer) {
			continue
		}
		if work += len(got) * len(want); work > nearMaxWork {
			break
		}
		if score := similarity(got, want); score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 || bestScore < nearMinSimilar {
		return ""
	}
	if bestScore == 1 {
		return fmt.Sprintf("; its first line matches line %d (ignoring indentation) but the lines after it differ; the file has there:\n%s",
			best+1, quoteLines(fileLines, best, min(best+len(oldLines), len(fileLines))))
	}
	return fmt.Sprintf("; the closest line to its first line is line %d:\n%s", best+1, quoteLines(fileLines, best, best+1))
}

// hasLineNumber reports whether line starts the way read numbers lines:
// optional spaces, digits, a tab.
func hasLineNumber(line string) bool {
	rest := strings.TrimLeft(line, " ")
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	return digits > 0 && strings.HasPrefix(rest[digits:], "\t")
}

// nonBlankSpan drops blank lines from both ends.
func nonBlankSpan(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// findIgnoringSpace returns the index of the first line of file where the
// lines of want follow, comparing lines with runs of whitespace collapsed,
// or -1.
func findIgnoringSpace(file, want []string) int {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	w := make([]string, len(want))
	for i, l := range want {
		w[i] = norm(l)
	}
	f := make([]string, len(file))
	for i, l := range file {
		f[i] = norm(l)
	}
	for i := 0; i+len(w) <= len(f); i++ {
		ok := true
		for j := range w {
			if f[i+j] != w[j] {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

// quoteLines shows file lines [from, to) with their numbers, as read does.
func quoteLines(lines []string, from, to int) string {
	to = min(to, from+nearShowLines, len(lines))
	var sb strings.Builder
	width := len(fmt.Sprint(to))
	for i := from; i < to; i++ {
		l, _ := cutLine(lines[i], readLineBytes)
		fmt.Fprintf(&sb, "%*d\t%s\n", width, i+1, l)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// similarity is 1 minus the edit distance of a and b over the longer
// length: 1 for equal strings, 0 for nothing in common.
func similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	longer := max(len(ra), len(rb))
	if longer == 0 {
		return 1
	}
	return 1 - float64(editDistance(ra, rb))/float64(longer)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
