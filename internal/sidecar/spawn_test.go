package sidecar

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spawnChildEnv makes this test binary, started by SpawnDetached, act as
// the background vigil: "ready" writes the ready byte, "exit" exits
// without it.
const spawnChildEnv = "VIGIL_SIDECAR_SPAWN_CHILD"

// TestSpawnChild is the child's side; it does nothing in a normal run.
func TestSpawnChild(t *testing.T) {
	switch os.Getenv(spawnChildEnv) {
	case "ready":
		r := NewReadyPipe(3)
		os.Stdout.WriteString("child ready\n")
		r.Write([]byte{1})
		r.Close()
		r.Close() // once
		os.Exit(0)
	case "exit":
		os.Stdout.WriteString("child gives up\n")
		os.Exit(1)
	}
}

// TestSpawnDetached: the spawned process's ready byte returns nil, its
// exit before it returns an error naming the log, and its output goes
// to the log; the --ready-fd it is given is after its own arguments.
func TestSpawnDetached(t *testing.T) {
	for _, tc := range []struct{ mode, log, err string }{
		{"ready", "child ready\n", ""},
		{"exit", "child gives up\n", "exited before it served"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Setenv(spawnChildEnv, tc.mode)
			logPath := filepath.Join(t.TempDir(), "spawn.log")
			// After "--" the test binary ignores the --ready-fd 3 appended.
			err := SpawnDetached(context.Background(), logPath, t.TempDir(), "-test.run=^TestSpawnChild$", "--")
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("SpawnDetached: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), logPath)):
				t.Fatalf("SpawnDetached: %v, want an error with %q and the log's path", err, tc.err)
			}
			if tc.mode == "exit" {
				// The child has exited (EOF on the pipe): its output is in.
				if b, _ := os.ReadFile(logPath); !strings.Contains(string(b), tc.log) {
					t.Fatalf("log %q, want %q", b, tc.log)
				}
			}
		})
	}
}

// TestReadyPipeNone: with no descriptor passed, writes and closes do
// nothing.
func TestReadyPipeNone(t *testing.T) {
	r := NewReadyPipe(0)
	if n, err := r.Write([]byte{1}); n != 1 || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
