package cli_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The real agents the attach tests drive, at the versions
// ../shared/spec/real-agents-offline.md says install and run here.
var realAgents = map[string]struct{ pkg, version, bin string }{
	"claude-code": {"@anthropic-ai/claude-code", "2.1.332", "claude"},
	"codex":       {"@openai/codex", "0.171.0", "codex"},
}

// realAgent returns the path of the named agent's binary, installing it
// from the npm registry into a cache folder the first time
// ($VIGIL_AGENTS_DIR, else the user's cache folder). The tests that need
// it fail when it cannot be installed: CI and the README's test command
// expect them to run. VIGIL_SKIP_REAL_AGENTS=1 skips them instead, for a
// machine with no npm registry.
func realAgent(t *testing.T, name string) string {
	t.Helper()
	if os.Getenv("VIGIL_SKIP_REAL_AGENTS") == "1" {
		t.Skip("VIGIL_SKIP_REAL_AGENTS=1: not driving the real " + name)
	}
	a := realAgents[name]
	root := os.Getenv("VIGIL_AGENTS_DIR")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no cache folder for the real agents (set VIGIL_AGENTS_DIR): %v", err)
		}
		root = filepath.Join(cache, "vigil", "agents")
	}
	prefix := filepath.Join(root, name+"@"+a.version)
	bin := filepath.Join(prefix, "node_modules", ".bin", a.bin)
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	// One install at a time, across test processes.
	lock, err := os.OpenFile(filepath.Join(root, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err == nil && strings.Contains(string(out), a.version) {
		return bin
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", a.pkg+"@"+a.version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install %s@%s from the npm registry: %v\n%s", a.pkg, a.version, err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), a.version) {
		t.Fatalf("%s --version after the install: %v: %s", bin, err, out)
	}
	return bin
}

var (
	vigilBinOnce sync.Once
	vigilBin     string
	vigilBinErr  error
)

// builtVigil builds ./cmd/vigil once per test process: the agents run it
// as their hook command, and it starts itself again as the sidecar, so it
// must be the real command, not this test binary.
func builtVigil(t testing.TB) string {
	t.Helper()
	vigilBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vigil-bin")
		if err != nil {
			vigilBinErr = err
			return
		}
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		vigilBin = filepath.Join(dir, "vigil")
		cmd := exec.Command("go", "build", "-o", vigilBin, "./cmd/vigil")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			vigilBinErr = fmt.Errorf("go build ./cmd/vigil: %v\n%s", err, out)
		}
	})
	if vigilBinErr != nil {
		t.Fatal(vigilBinErr)
	}
	return vigilBin
}

// freeAddr is a loopback address nothing listens on now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
