//go:build linux

package tools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// groupAlive reports whether any process of group pgid is still running.
// Zombies count as dead: they have exited and wait only for their parent
// (or init) to collect them.
func groupAlive(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 3 {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid && fields[0] != "Z" && fields[0] != "X" {
			return true
		}
	}
	return false
}
