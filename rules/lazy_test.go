package rules

import (
	"testing"

	"github.com/vigil-dev/vigil/internal/lazyre"
)

// TestExpressionsCompile compiles every expression declared as a
// lazyre.Regexp: they are compiled at first use, not at start, so a bad one
// would otherwise panic only in the run that first needs it.
func TestExpressionsCompile(t *testing.T) {
	for name, re := range map[string]*lazyre.Regexp{
		"successClaim": &successClaim, "hedge": &hedge,
		"forbidTests": &forbidTests, "forbidConfig": &forbidConfig,
		"rejection": &rejection, "errorLine": &errorLine, "testFailure": &testFailure,
		"creepCue": &creepCue, "missingModule": &missingModule,
		"suppressFlag": &suppressFlag, "suppressMarker": &suppressMarker, "assertion": &assertion,
	} {
		if first := re.Get(); first == nil || re.Get() != first || first.String() != re.Expr {
			t.Errorf("%s: not compiled once from its expression", name)
		}
	}
}
