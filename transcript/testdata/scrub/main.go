// Command scrub shortens a recorded transcript for checking in: every JSON
// string longer than -max bytes (system prompts, tool listings, request
// snapshots) is cut to its first -keep bytes plus a marker saying how long
// it was, and an array or object under one of the -empty keys that is
// longer than -max bytes is emptied. Everything else, key order and
// spacing included, is copied byte for byte, so the result is still the
// agent's own format.
//
//	go run ./transcript/testdata/scrub [-max 1000] [-keep 120] [-empty tools,shape] < in.jsonl > out.jsonl
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

func main() {
	maxLen := flag.Int("max", 1000, "cut strings longer than this many bytes")
	keep := flag.Int("keep", 120, "bytes of a cut string to keep")
	empty := flag.String("empty", "", "comma-separated `keys` whose long array or object values are emptied")
	flag.Parse()
	emptyKeys := map[string]bool{}
	for _, k := range strings.Split(*empty, ",") {
		if k != "" {
			emptyKeys[k] = true
		}
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		out.Write(cutStrings(line, *maxLen, *keep, emptyKeys))
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "scrub:", err)
			os.Exit(1)
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "scrub:", err)
		os.Exit(1)
	}
}

// cutStrings copies one JSON line, shortening long string literals and
// emptying long values under the keys in empty.
func cutStrings(line []byte, maxLen, keep int, empty map[string]bool) []byte {
	out := make([]byte, 0, len(line))
	for i := 0; i < len(line); {
		if line[i] != '"' {
			out = append(out, line[i])
			i++
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			return append(out, line[i:]...)
		}
		body := line[i+1 : j]
		if v := valueAfterKey(line, j+1); empty[string(body)] && v > 0 && (line[v] == '[' || line[v] == '{') {
			if end := matchingEnd(line, v); end > 0 && end-v > maxLen {
				out = append(out, line[i:v]...)
				out = append(out, line[v], line[end])
				i = end + 1
				continue
			}
		}
		if len(body) <= maxLen {
			out = append(out, line[i:j+1]...)
		} else {
			cut := keep
			for cut > 0 && (!utf8.RuneStart(body[cut]) || escapeAt(body, cut)) {
				cut--
			}
			out = append(out, '"')
			out = append(out, body[:cut]...)
			out = append(out, fmt.Sprintf(" [cut by scrub: %d bytes]\"", len(body))...)
		}
		i = j + 1
	}
	return out
}

// escapeAt reports whether cutting body at i would split an escape
// sequence (a backslash and what follows, up to \uXXXX).
func escapeAt(body []byte, i int) bool {
	for k := i - 1; k >= 0 && k >= i-5; k-- {
		if body[k] == '\\' {
			// Count the backslashes before it: an even run is literal.
			n := 0
			for m := k; m >= 0 && body[m] == '\\'; m-- {
				n++
			}
			if n%2 == 1 {
				return i-k <= 1 || (body[k+1] == 'u' && i-k <= 5)
			}
			return false
		}
	}
	return false
}

// valueAfterKey returns where the value starts when the string that ended
// just before i is an object key, and 0 otherwise.
func valueAfterKey(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return 0
	}
	i++
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) {
		return 0
	}
	return i
}

// matchingEnd returns the index of the bracket closing the array or object
// that opens at i, skipping strings; 0 when it does not close on the line.
func matchingEnd(line []byte, i int) int {
	depth := 0
	for k := i; k < len(line); k++ {
		switch line[k] {
		case '"':
			for k++; k < len(line) && line[k] != '"'; k++ {
				if line[k] == '\\' {
					k++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return 0
}
