//go:build !race

package transcript

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
