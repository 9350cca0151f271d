//go:build !unix

package hostiletest

import "testing"

// FIFO skips t: there are no named pipes here.
func FIFO(t *testing.T, _ string) { t.Skip("no named pipes here") }
