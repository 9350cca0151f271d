package cli_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/hookwire/socktest"

	"github.com/vigil-dev/vigil/internal/sidecar"
)

// Issue 28: SIGTERM while ask_advisor waited for the sidecar left `vigil
// mcp` running until the CLI's grace after the signal ran out (it then
// ended itself, saying "stopping now"). The signal cancels the pending
// consult now: its request to the sidecar goes, and vigil mcp returns by
// itself, before any grace, with status 0. The sidecar here is the
// test's, and never answers.
func TestMCPSigtermEndsAPendingConsult(t *testing.T) {
	run, err := os.MkdirTemp("", "vms") // socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	runDir := filepath.Join(run, "r")
	dir, err := sidecar.RuntimeDir(func(k string) (string, bool) { return runDir, k == "VIGIL_RUNTIME_DIR" })
	if err != nil {
		t.Fatal(err)
	}
	key := sidecar.Key{Agent: sidecar.AgentClaudeCode, Session: "s1"}
	asked, gone := make(chan struct{}, 1), make(chan struct{}, 1)
	socktest.Serve(t, dir.Socket(key), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so the server notices the client go
		asked <- struct{}{}
		<-r.Context().Done()
		gone <- struct{}{}
	}))
	if err := dir.WriteInfo(sidecar.Info{Key: key, PID: os.Getpid(), Socket: dir.Socket(key), Started: time.Now()}); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(builtVigil(t), "mcp", "--agent", "claude-code", "--session", "s1")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + cmd.Dir, "PATH=" + os.Getenv("PATH"), "VIGIL_RUNTIME_DIR=" + runDir}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sig","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_advisor","arguments":{"question":"Is it safe?"}}}`,
	} {
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-asked:
	case <-time.After(waitBound):
		t.Fatalf("the question never reached the sidecar; stderr: %s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if strings.Contains(stderr.String(), "stopping now") {
		t.Errorf("vigil mcp waited out the grace after SIGTERM: %s", stderr.String())
	}
	if err != nil {
		t.Errorf("vigil mcp after SIGTERM: %v, want status 0; stderr: %s", err, stderr.String())
	}
	select {
	case <-gone:
	case <-time.After(waitBound):
		t.Error("the consult's request to the sidecar was not cancelled")
	}
}
