package transcript

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled the first time it is used.
// The readers' expressions are declared as lazyRegexp values, which the
// compiler lays out as static data, so that starting vigil (every
// command, including the hook, which must answer within milliseconds)
// neither compiles nor allocates anything for them. A bad expression
// panics at its first use, as regexp.MustCompile would at start;
// TestExpressionsCompile compiles every one.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// get returns the compiled expression, compiling it on the first call.
// It is safe for concurrent use.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}
