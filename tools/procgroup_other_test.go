//go:build unix && !linux

package tools

import "syscall"

// groupAlive reports whether group pgid still has a process (zombies
// included, which is stricter than needed).
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
