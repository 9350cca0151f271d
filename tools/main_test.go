package tools

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind: bash's reader
// and waiter must end before Run returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
