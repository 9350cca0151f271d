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
	bin, err := installNpm(name, a.version, a.bin, a.pkg+"@"+a.version)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// agentsRoot is the cache folder of the real agents: $VIGIL_AGENTS_DIR,
// else the user's cache folder.
func agentsRoot() (string, error) {
	if root := os.Getenv("VIGIL_AGENTS_DIR"); root != "" {
		return root, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for the real agents (set VIGIL_AGENTS_DIR): %w", err)
	}
	return filepath.Join(cache, "vigil", "agents"), nil
}

// installNpm returns the path of binary bin of agent name@version,
// installing pkgs with npm into the agents' cache folder
// (agentsRoot()/name@version) unless bin --version already says version.
func installNpm(name, version, bin string, pkgs ...string) (string, error) {
	root, err := agentsRoot()
	if err != nil {
		return "", err
	}
	prefix := filepath.Join(root, name+"@"+version)
	path := filepath.Join(prefix, "node_modules", ".bin", bin)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	// One install at a time, across test processes.
	lock, err := os.OpenFile(filepath.Join(root, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	version1 := func() ([]byte, error) {
		cmd := exec.Command(path, "--version")
		// omp runs on bun, installed beside it.
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(path)+string(os.PathListSeparator)+os.Getenv("PATH"))
		return cmd.CombinedOutput()
	}
	if out, err := version1(); err == nil && strings.Contains(string(out), version) {
		return path, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := append([]string{"install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error"}, pkgs...)
	if out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("install %s from the npm registry: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	out, err := version1()
	if err != nil || !strings.Contains(string(out), version) {
		return "", fmt.Errorf("%s --version after the install: %v: %s", path, err, out)
	}
	return path, nil
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
