package sidecar

import "github.com/vigil-dev/vigil/internal/hookwire"

// LogText returns s with what a log line must not hold escaped (control
// characters, invalid UTF-8): [hookwire.LogText], the one the hook
// command's log uses too.
func LogText(s string) string { return hookwire.LogText(s) }
