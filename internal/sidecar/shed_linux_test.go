//go:build linux

package sidecar

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func rssFileKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Fatal("no RssFile")
	return 0
}

// TestShedStartPages: the executable's read-only pages leave the
// resident set, and the program goes on running (its code and constants
// are read back from the page cache on use).
func TestShedStartPages(t *testing.T) {
	before := rssFileKB(t)
	if n := ShedStartPages(); n == 0 {
		t.Fatal("no mapping of the executable advised")
	}
	after := rssFileKB(t)
	if after >= before {
		t.Fatalf("RssFile %d kB before, %d kB after: nothing given back", before, after)
	}
	// Code and constants that were dropped still work.
	if !regexp.MustCompile(`^a+$`).MatchString("aaa") || strconv.Itoa(42) != "42" {
		t.Fatal("the program misbehaves after shedding its pages")
	}
	t.Logf("RssFile %d kB -> %d kB", before, after)
}
