package rules

import (
	"regexp"
	"testing"
)

// TestExpressionsCompile compiles every expression the detectors declare
// with sync.OnceValue: they are compiled at first use, not at start, so a
// bad one would otherwise panic only in the run that first needs it.
func TestExpressionsCompile(t *testing.T) {
	for name, re := range map[string]func() *regexp.Regexp{
		"successClaim": successClaim, "hedge": hedge,
		"forbidTests": forbidTests, "forbidConfig": forbidConfig,
		"rejection": rejection, "errorLine": errorLine, "testFailure": testFailure,
		"creepCue": creepCue, "missingModule": missingModule,
		"suppressFlag": suppressFlag, "suppressMarker": suppressMarker, "assertion": assertion,
		"resultLine": resultLine, "echoClaim": echoClaim, "fixClaim": fixClaim,
	} {
		if first := re(); first == nil || re() != first {
			t.Errorf("%s: not compiled once", name)
		}
	}
}
