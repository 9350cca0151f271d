package cli

import (
	"os"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/sidecar"
)

// TestMCPFindsTheSidecar: vigil mcp asks the sidecar named by --agent and
// --session, or else the one watching the process that started it; with
// neither live it finds none.
func TestMCPFindsTheSidecar(t *testing.T) {
	d, err := os.MkdirTemp("", "vmcp")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(d)
	e := &env{lookupEnv: func(k string) (string, bool) { return d + "/run", k == "VIGIL_RUNTIME_DIR" }}
	byFlags, byParent := &mcpCmd{Agent: sidecar.AgentCodex, Session: "s-codex"}, &mcpCmd{}
	if _, ok := byParent.find(e)(); ok {
		t.Fatal("found a sidecar in an empty folder")
	}
	dir, err := sidecar.RuntimeDir(e.lookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	parent := sidecar.AgentOf(os.Getppid())
	for _, in := range []sidecar.Info{
		{Key: sidecar.Key{Agent: sidecar.AgentCodex, Session: "s-codex"}, PID: os.Getpid(), Started: time.Now()},
		{Key: sidecar.Key{Agent: sidecar.AgentClaudeCode, Session: "s-parent"}, PID: os.Getpid(), AgentPID: parent.PID, AgentStart: parent.Start, Started: time.Now()},
	} {
		if err := dir.WriteInfo(in); err != nil {
			t.Fatal(err)
		}
	}
	if in, ok := byFlags.find(e)(); !ok || in.Session != "s-codex" {
		t.Errorf("--agent codex --session s-codex found %+v, %v", in, ok)
	}
	if parent.PID > 1 {
		if in, ok := byParent.find(e)(); !ok || in.Session != "s-parent" {
			t.Errorf("by the parent process found %+v, %v", in, ok)
		}
	}
}
