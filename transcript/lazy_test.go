package transcript

import (
	"regexp"
	"testing"
)

// TestExpressionsCompile compiles every expression the readers declare
// with sync.OnceValue: they are compiled at first use, not at start, so a
// bad one would otherwise panic only when a reader first needs it.
func TestExpressionsCompile(t *testing.T) {
	for name, re := range map[string]func() *regexp.Regexp{
		"aiderLines": aiderLines, "aiderOutput": aiderOutput, "aiderModel": aiderModel,
		"aiderFormat": aiderFormat, "aiderChatFile": aiderChatFile, "aiderFailedBlocks": aiderFailedBlocks,
		"cxExitRE": cxExitRE, "bashBlock": bashBlock, "returnCodeTag": returnCodeTag,
	} {
		if first := re(); first == nil || re() != first {
			t.Errorf("%s: not compiled once", name)
		}
	}
}
