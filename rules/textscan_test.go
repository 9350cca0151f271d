package rules

import (
	"strings"
	"testing"
)

func TestLastIndex(t *testing.T) {
	texts := []string{"", "a", "aaaa", "abcabcab", "No module named x\nNo module named y", "xx No module named", "ababab"}
	subs := []string{"", "a", "aa", "ab", "abc", "No module named", "b", "zz"}
	for _, s := range texts {
		for _, sub := range subs {
			if got, want := lastIndex(s, sub), strings.LastIndex(s, sub); got != want {
				t.Errorf("lastIndex(%q, %q) = %d, want %d", s, sub, got, want)
			}
		}
	}
}

func TestExitCodeMarkersNameACodeOrStatus(t *testing.T) {
	for _, m := range exitMarkers {
		if !strings.Contains(m.prefix, "code") && !strings.Contains(m.prefix, "status") {
			t.Errorf("marker %q names neither a code nor a status; exitCode would skip it", m.prefix)
		}
	}
}
