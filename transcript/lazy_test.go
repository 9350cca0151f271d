package transcript

import "testing"

// TestExpressionsCompile compiles every expression declared as a
// lazyRegexp: they are compiled at first use, not at start, so a bad one
// would otherwise panic only when a reader first needs it.
func TestExpressionsCompile(t *testing.T) {
	for name, re := range map[string]*lazyRegexp{
		"aiderLines": &aiderLines, "aiderOutput": &aiderOutput, "aiderModel": &aiderModel,
		"cxExitRE": &cxExitRE, "bashBlock": &bashBlock, "returnCodeTag": &returnCodeTag,
	} {
		if first := re.get(); first == nil || re.get() != first || first.String() != re.expr {
			t.Errorf("%s: not compiled once from its expression", name)
		}
	}
}
