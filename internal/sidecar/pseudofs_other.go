//go:build !linux

package sidecar

// pseudoFile returns "": only Linux's kernel file systems are known.
func pseudoFile(path string) (string, error) { return "", nil }
