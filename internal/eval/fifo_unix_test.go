//go:build unix

package eval

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	rep, err := Evaluate(context.Background(), []Label{{File: "run.jsonl", Path: fifo, Class: Clean}}, RulesReviewer{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Runs[0]; !strings.Contains(r.Error, "not a regular file") {
		t.Errorf("a FIFO as a transcript: got %+v, want an error saying it is not a regular file", r)
	}
	if _, err := Run(context.Background(), []string{fifo}, RulesReviewer{}, Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO as the labels file: got %v", err)
	}
}
