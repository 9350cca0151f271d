// Package lazyre is a regular expression compiled the first time it is
// used. Declared as a composite literal, a [Regexp] is static data: a
// package that holds many of them (the detectors, the readers, the
// redactor's key shapes) neither compiles nor allocates anything for
// them when vigil starts, which every command does, including the hook
// command that must answer within milliseconds.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is the expression Expr, compiled by its first Get. A bad
// expression panics at its first use, as regexp.MustCompile would at
// start; a package that declares them should have a test that calls Get
// on each. The zero value is the empty expression.
type Regexp struct {
	Expr string
	once sync.Once
	re   *regexp.Regexp
}

// Get returns the compiled expression, compiling it on the first call.
// It is safe for concurrent use.
func (l *Regexp) Get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.Expr) })
	return l.re
}
