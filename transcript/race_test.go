//go:build race

package transcript

// raceEnabled says the tests run under the race detector, which slows
// byte-by-byte scanning several times over.
const raceEnabled = true
