package cli_test

import (
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/config"
)

// WATCHDOG.yml's instructions are cut where WATCHDOG.md is (docs say
// they are capped alike).
func TestRosterCapIsWatchdogCap(t *testing.T) {
	if config.MaxInstructionBytes != advisor.MaxWatchdogBytes {
		t.Errorf("WATCHDOG.yml instructions are cut at %d bytes, WATCHDOG.md at %d", config.MaxInstructionBytes, advisor.MaxWatchdogBytes)
	}
}
