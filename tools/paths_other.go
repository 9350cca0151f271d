//go:build !unix

package tools

func isNotDir(error) bool { return false }
