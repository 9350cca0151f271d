//go:build !linux

package sidecar

// ShedStartPages does nothing here: see the Linux version.
func ShedStartPages() int { return 0 }
