package cli_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	vigilHookOnce sync.Once
	vigilHookBin  string
	vigilHookErr  error
)

// builtVigilHook builds ./cmd/vigil-hook once per test process, beside
// the vigil builtVigil built: it starts sidecars with the vigil in its
// own folder, as an installed pair does.
func builtVigilHook(t testing.TB) string {
	t.Helper()
	vigil := builtVigil(t)
	vigilHookOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		vigilHookBin = filepath.Join(filepath.Dir(vigil), "vigil-hook")
		cmd := exec.Command("go", "build", "-o", vigilHookBin, "./cmd/vigil-hook")
		cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			vigilHookErr = fmt.Errorf("go build ./cmd/vigil-hook: %v\n%s", err, out)
		}
	})
	if vigilHookErr != nil {
		t.Fatal(vigilHookErr)
	}
	return vigilHookBin
}

// TestFastHookStartsHookd: with Claude Code's HTTP hooks configured
// (hookd.json), vigil-hook's UserPromptSubmit starts vigil hookd, with
// the vigil beside it, once: the next finds it listening.
func TestFastHookStartsHookd(t *testing.T) {
	h := newHookEnv(t)
	h.command = []string{builtVigilHook(t), "claude-code"}
	addr := freeAddr(t)
	write(t, filepath.Join(h.agentDir, "hookd.json"), `{"addr":"`+addr+`","secret":"`+strings.Repeat("5e", 24)+`"}`)
	pidFile := filepath.Join(h.runDir, "hookd.pid")
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	})
	pids := map[string]bool{}
	for i := range 2 {
		r := h.hook(t, bytes.NewReader(h.event("UserPromptSubmit", map[string]any{"prompt": "go on"})))
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("hook %d: exit %d, printed %q", i+1, r.code, r.stdout)
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatalf("hook %d: no hookd.pid: %v\n%s", i+1, err, h.hookLog())
		}
		pids[strings.TrimSpace(string(b))] = true
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("hook %d: nothing listens on %s: %v", i+1, addr, err)
		}
		conn.Close()
	}
	if len(pids) != 1 {
		t.Errorf("hookd processes %v; want the one", pids)
	}
	if lines := h.hookLog(); len(lines) != 0 {
		t.Errorf("hook.log:\n%s", strings.Join(lines, "\n"))
	}
}
