package rules

import "testing"

// TestExpressionsCompile compiles every expression declared as a
// lazyRegexp: they are compiled at first use, not at start, so a bad one
// would otherwise panic only in the run that first needs it.
func TestExpressionsCompile(t *testing.T) {
	for name, re := range map[string]*lazyRegexp{
		"successClaim": &successClaim, "hedge": &hedge,
		"forbidTests": &forbidTests, "forbidConfig": &forbidConfig,
		"rejection": &rejection, "errorLine": &errorLine, "testFailure": &testFailure,
		"creepCue": &creepCue, "missingModule": &missingModule,
		"suppressFlag": &suppressFlag, "suppressMarker": &suppressMarker, "assertion": &assertion,
	} {
		if first := re.get(); first == nil || re.get() != first || first.String() != re.expr {
			t.Errorf("%s: not compiled once from its expression", name)
		}
	}
}
