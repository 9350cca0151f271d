//go:build !race

package hostiletest

// raceEnabled says the race detector is on.
const raceEnabled = false
