package transcript

import (
	"testing"

	"github.com/vigil-dev/vigil/internal/lazyre"
)

// TestExpressionsCompile compiles every expression declared as a
// lazyre.Regexp: they are compiled at first use, not at start, so a bad one
// would otherwise panic only when a reader first needs it.
func TestExpressionsCompile(t *testing.T) {
	for name, re := range map[string]*lazyre.Regexp{
		"aiderLines": &aiderLines, "aiderOutput": &aiderOutput, "aiderModel": &aiderModel,
		"cxExitRE": &cxExitRE, "bashBlock": &bashBlock, "returnCodeTag": &returnCodeTag,
	} {
		if first := re.Get(); first == nil || re.Get() != first || first.String() != re.Expr {
			t.Errorf("%s: not compiled once from its expression", name)
		}
	}
}
