package tools

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// glob is a doublestar pattern as grep and find take it: without a / it
// matches a file's name at any depth ("*.go"), with one it matches the path
// relative to the search folder ("cmd/**/main.go", "./main.go").
type glob struct {
	pattern  string
	nameOnly bool
}

// parseGlob checks pattern; what names the argument in errors.
func parseGlob(what, pattern string) (glob, error) {
	nameOnly := !strings.Contains(pattern, "/")
	pattern = strings.TrimPrefix(pattern, "./") // "./x" means x at the top
	if pattern == "" {
		return glob{}, fmt.Errorf("%s is empty", what)
	}
	if !doublestar.ValidatePattern(pattern) {
		return glob{}, fmt.Errorf("%s %q is not a valid glob (check its [ ] and { } pairs)", what, pattern)
	}
	return glob{pattern: pattern, nameOnly: nameOnly}, nil
}

// match reports whether rel, a slash-separated path relative to the search
// folder, matches.
func (g glob) match(rel string) bool {
	target := rel
	if g.nameOnly {
		target = path.Base(rel)
	}
	ok, err := doublestar.Match(g.pattern, target)
	return err == nil && ok
}
