package tools

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file matches paths against .gitignore patterns, following
// gitignore(5):
//
//   - blank lines and lines starting with # are skipped; \# and \! start a
//     pattern with a literal # or !;
//   - trailing spaces are dropped unless escaped with a backslash;
//   - a leading ! re-includes what an earlier pattern excluded;
//   - a trailing / makes the pattern match folders only;
//   - a pattern with a / at its start or middle is anchored to the folder of
//     its .gitignore; one without matches a name at any depth below it;
//   - * matches anything but /, ? one character but /, [...] a character
//     class (with ! or ^ to negate, ranges and [:alpha:]-style classes), and
//     \ escapes the next character;
//   - **/ at the start matches in every folder, /** at the end everything
//     inside (but not the folder itself), /**/ zero or more folders; other
//     runs of * act as one *.
//
// Later patterns win over earlier ones, and the files of deeper folders over
// those of shallower ones. Git does not descend into an excluded folder, so
// nothing inside it can be re-included; the walker gets that for free by not
// descending either. As in git, a pattern with an unclosed [ or a trailing \
// matches nothing.

// ignorePattern is one pattern line of a .gitignore file.
type ignorePattern struct {
	// base is the folder of the .gitignore, relative to the walk's top and
	// slash-separated; "" is the top.
	base string
	// segs are the pattern's path segments; "**" stands alone.
	segs    []string
	negate  bool
	dirOnly bool
}

// parseIgnore parses a .gitignore file that lives in base.
func parseIgnore(data []byte, base string) []ignorePattern {
	var pats []ignorePattern
	for _, line := range bytes.Split(data, []byte("\n")) {
		if p, ok := parseIgnoreLine(string(line), base); ok {
			pats = append(pats, p)
		}
	}
	return pats
}

func parseIgnoreLine(line, base string) (ignorePattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimUnescapedSpace(line)
	if line == "" || line[0] == '#' {
		return ignorePattern{}, false
	}
	p := ignorePattern{base: base}
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignorePattern{}, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimLeft(line, "/")
	for _, s := range strings.Split(line, "/") {
		if s != "" {
			p.segs = append(p.segs, s)
		}
	}
	if len(p.segs) == 0 {
		return ignorePattern{}, false
	}
	if !anchored {
		p.segs = append([]string{"**"}, p.segs...)
	}
	if p.segs[len(p.segs)-1] == "**" {
		// "/**" at the end matches what is inside, at least one segment.
		p.segs = append(p.segs[:len(p.segs)-1], "*", "**")
	}
	return p, true
}

// trimUnescapedSpace drops trailing spaces that no backslash escapes.
func trimUnescapedSpace(s string) string {
	for strings.HasSuffix(s, " ") {
		body := s[:len(s)-1]
		// Count the backslashes before the space: an odd number escapes it.
		n := len(body) - len(strings.TrimRight(body, `\`))
		if n%2 == 1 {
			return s
		}
		s = body
	}
	return s
}

// matches reports whether the pattern matches rel, a slash-separated path
// relative to the walk's top.
func (p ignorePattern) matches(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.base != "" {
		if !strings.HasPrefix(rel, p.base+"/") {
			return false
		}
		rel = rel[len(p.base)+1:]
	}
	return matchSegments(p.segs, strings.Split(rel, "/"))
}

// ignoreList is the patterns in force, in increasing priority.
type ignoreList []ignorePattern

// ignored reports whether rel is excluded: the last pattern that matches it
// decides. Only rel itself is tested, not its parent folders.
func (l ignoreList) ignored(rel string, isDir bool) bool {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].matches(rel, isDir) {
			return !l[i].negate
		}
	}
	return false
}

// matchSegments matches path segments against pattern segments, where a
// "**" segment matches any number of path segments. Backtracking to the
// latest "**" alone is enough, as for * in a plain wildcard match.
func matchSegments(pat, path []string) bool {
	pi, si := 0, 0
	starP, starS := -1, -1
	for si < len(path) {
		switch {
		case pi < len(pat) && pat[pi] == "**":
			starP, starS = pi, si
			pi++
		case pi < len(pat) && matchSegment(pat[pi], path[si]):
			pi++
			si++
		case starP >= 0:
			starS++
			pi, si = starP+1, starS
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == "**" {
		pi++
	}
	return pi == len(pat)
}

// matchSegment matches one path segment (no /) against one pattern segment
// with *, ?, [...] and \ escapes.
func matchSegment(pat, name string) bool {
	pi, ni := 0, 0
	starP, starN := -1, -1
	for ni < len(name) {
		if pi < len(pat) {
			switch pat[pi] {
			case '*':
				for pi < len(pat) && pat[pi] == '*' {
					pi++
				}
				starP, starN = pi, ni
				continue
			case '?':
				_, size := utf8.DecodeRuneInString(name[ni:])
				pi++
				ni += size
				continue
			case '[':
				r, size := utf8.DecodeRuneInString(name[ni:])
				ok, next, valid := matchClass(pat, pi, r)
				if !valid {
					return false // as in git, an unclosed [ matches nothing
				}
				if ok {
					pi = next
					ni += size
					continue
				}
			case '\\':
				if pi+1 == len(pat) {
					return false // as in git, a trailing \ matches nothing
				}
				pr, psize := utf8.DecodeRuneInString(pat[pi+1:])
				r, size := utf8.DecodeRuneInString(name[ni:])
				if pr == r {
					pi += 1 + psize
					ni += size
					continue
				}
			default:
				pr, psize := utf8.DecodeRuneInString(pat[pi:])
				r, size := utf8.DecodeRuneInString(name[ni:])
				if pr == r {
					pi += psize
					ni += size
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		_, size := utf8.DecodeRuneInString(name[starN:])
		starN += size
		pi, ni = starP, starN
	}
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	return pi == len(pat)
}

// matchClass matches r against the bracket expression starting at pat[i]
// ('['). It returns whether r is in the class, the index after the closing
// ']', and whether the expression is well formed (closed).
func matchClass(pat string, i int, r rune) (matched bool, next int, valid bool) {
	i++ // past '['
	negate := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		negate = true
		i++
	}
	in := false
	first := true
	for i < len(pat) {
		if pat[i] == ']' && !first {
			return in != negate, i + 1, true
		}
		first = false
		if strings.HasPrefix(pat[i:], "[:") {
			if end := strings.Index(pat[i+2:], ":]"); end >= 0 {
				if posixClass(pat[i+2:i+2+end], r) {
					in = true
				}
				i += 2 + end + 2
				continue
			}
		}
		lo, size := classChar(pat, i)
		if size == 0 {
			break
		}
		i += size
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			h, hsize := classChar(pat, i+1)
			if hsize == 0 {
				break
			}
			hi = h
			i += 1 + hsize
		}
		// Like git, a reversed range (z-a) still matches its first end.
		if r == lo || lo <= r && r <= hi {
			in = true
		}
	}
	return false, 0, false
}

// classChar reads one possibly escaped character of a bracket expression.
func classChar(pat string, i int) (rune, int) {
	if pat[i] == '\\' {
		if i+1 >= len(pat) {
			return 0, 0
		}
		r, size := utf8.DecodeRuneInString(pat[i+1:])
		return r, 1 + size
	}
	return utf8.DecodeRuneInString(pat[i:])
}

func posixClass(name string, r rune) bool {
	switch name {
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case "alpha":
		return unicode.IsLetter(r)
	case "blank":
		return r == ' ' || r == '\t'
	case "cntrl":
		return unicode.IsControl(r)
	case "digit":
		return '0' <= r && r <= '9'
	case "graph":
		return unicode.IsGraphic(r) && !unicode.IsSpace(r)
	case "lower":
		return unicode.IsLower(r)
	case "print":
		return unicode.IsPrint(r)
	case "punct":
		return unicode.IsPunct(r) || unicode.IsSymbol(r)
	case "space":
		return unicode.IsSpace(r)
	case "upper":
		return unicode.IsUpper(r)
	case "xdigit":
		return strings.ContainsRune("0123456789abcdefABCDEF", r)
	}
	return false
}
