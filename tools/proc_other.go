//go:build !unix

package tools

import "os/exec"

// On systems without process groups only the shell itself is signalled.

func startInGroup(*exec.Cmd) {}

func terminateGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
