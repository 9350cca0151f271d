//go:build race

package hostiletest

// raceEnabled says the race detector is on, which slows the YAML library
// several times over.
const raceEnabled = true
