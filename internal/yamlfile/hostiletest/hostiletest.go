// Package hostiletest feeds a settings reader the files an attacker or an
// accident can put where it looks (a configuration bomb in a cloned
// repository, a named pipe, a link to /dev/zero) and checks that each ends
// within [Time] and [Memory] in an error that names the file and says
// what is wrong with it. config and internal/models run their readers
// through it.
package hostiletest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Memory is how much one case may allocate in all, an upper bound on its
// peak heap.
const Memory = 256 << 20

// Time is how long one case may take; the race detector slows the YAML
// library several times over, so it gets more.
func Time() time.Duration {
	if raceEnabled {
		return 20 * time.Second
	}
	return 2 * time.Second
}

// Case is one hostile file.
type Case struct {
	Name string
	// Make puts the file at path, whose folder exists. It skips t when
	// the system cannot make it.
	Make func(t *testing.T, path string)
	// Want is a phrase the error must hold; "" takes any error.
	Want string
}

// Run makes each case's file at the path place returns (a fresh one for
// each case) and calls read on it, in turn, and fails a case whose read
// succeeds, takes longer than [Time], allocates more than [Memory], or
// returns an error that does not name the file or lacks the case's
// phrase. The figures are logged.
func Run(t *testing.T, place func(t *testing.T) string, read func(path string) error) {
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			path := place(t)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			c.Make(t, path)
			var err error
			Bounded(t, func() { err = read(path) })
			t.Logf("%v", err)
			switch {
			case err == nil:
				t.Errorf("read succeeded, want an error")
			case !strings.Contains(err.Error(), path):
				t.Errorf("error %q does not name %s", err, path)
			case !strings.Contains(err.Error(), c.Want):
				t.Errorf("error %q does not say %q", err, c.Want)
			}
		})
	}
}

// Bounded runs f and fails t when it takes longer than [Time] or allocates
// more than [Memory]; it gives up waiting after five times [Time]. The
// figures are logged.
func Bounded(t testing.TB, f func()) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * Time()):
		t.Fatalf("still running after %v", 5*Time())
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%v, %.1f MB allocated", elapsed.Round(time.Millisecond), float64(alloc)/1e6)
	if elapsed > Time() {
		t.Errorf("took %v, want at most %v", elapsed, Time())
	}
	if alloc > Memory {
		t.Errorf("allocated %d MB, want at most %d", alloc>>20, Memory>>20)
	}
}
