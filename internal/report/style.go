package report

import (
	"strings"

	"github.com/vigil-dev/vigil/rules"
)

// Style says how text output is decorated.
type Style struct {
	// Color turns on ANSI colours.
	Color bool
	// Signals lists each run's signals after its findings.
	Signals bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

func (s Style) wrap(code, text string) string {
	if !s.Color || text == "" {
		return text
	}
	return code + text + ansiReset
}

func (s Style) bold(text string) string { return s.wrap(ansiBold, text) }
func (s Style) dim(text string) string  { return s.wrap(ansiDim, text) }

// severity colours a severity name: blockers red, concerns yellow, nits
// cyan.
func (s Style) severity(sev rules.Severity, text string) string {
	switch sev {
	case rules.Blocker:
		return s.wrap(ansiBold+ansiRed, text)
	case rules.Concern:
		return s.wrap(ansiYellow, text)
	case rules.Nit:
		return s.wrap(ansiCyan, text)
	}
	return text
}

// diffLine returns the style of a line of a diff: added lines green,
// removed ones red, the rest dim.
func (s Style) diffLine(line string) func(string) string {
	switch {
	case strings.HasPrefix(line, "+"):
		return func(t string) string { return s.wrap(ansiGreen, t) }
	case strings.HasPrefix(line, "-"):
		return func(t string) string { return s.wrap(ansiRed, t) }
	}
	return s.dim
}
