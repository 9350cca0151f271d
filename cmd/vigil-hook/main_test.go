package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/vigil-dev/vigil"

// TestStartsSmall keeps vigil-hook the small binary it is for: it links
// the standard library and internal/hookwire, nothing else of ours and
// nothing from outside (no model SDK, no YAML, no command line parser),
// and not the standard packages that cost its start: net (which links
// the C library where cgo is on, making the binary dynamic), net/http
// (TLS, HTTP/2, their tables) and os/user.
func TestStartsSmall(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := map[string]string{
		"net":         "links the C library where cgo is on: the binary would be dynamic",
		"net/http":    "TLS, HTTP/2 and their start-up",
		"runtime/cgo": "a dynamic binary starts milliseconds later",
		"os/user":     "links the C library where cgo is on",
		"crypto/tls":  "nothing here speaks TLS",
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		n++
		switch {
		case std == "true":
			if why, bad := forbidden[path]; bad {
				t.Errorf("vigil-hook links %s: %s", path, why)
			}
		case path == module+"/cmd/vigil-hook", path == module+"/internal/hookwire":
		case strings.HasPrefix(path, module+"/"):
			t.Errorf("vigil-hook links %s: only internal/hookwire of ours", path)
		default:
			t.Errorf("vigil-hook links %s: only the standard library from outside (no SDK, YAML or kong)", path)
		}
	}
	if n < 10 {
		t.Fatalf("go list -deps listed %d packages", n)
	}
}

// build builds vigil-hook into a folder of its own, with no vigil beside
// it.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "vigil-hook")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestFailsOpenWithoutVigil: with no vigil beside it to start a sidecar
// with, the hook prints nothing, exits 0 and logs why; called by hand
// with the wrong arguments it says how to call it, with status 1 (not 2,
// which Claude Code takes as "block").
func TestFailsOpenWithoutVigil(t *testing.T) {
	bin := build(t)
	run, err := os.MkdirTemp("", "vhb")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(run)
	cmd := exec.Command(bin, "codex")
	cmd.Env = []string{"VIGIL_RUNTIME_DIR=" + filepath.Join(run, "r"), "VIGIL_AGENT_DIR=" + filepath.Join(run, "agent"), "HOME=" + run}
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"Stop","cwd":"` + run + `"}`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.Len() > 0 || stderr.Len() > 0 {
		t.Fatalf("exit %v, printed %q, stderr %q; want 0 and nothing", err, stdout.String(), stderr.String())
	}
	log, _ := os.ReadFile(filepath.Join(run, "r", "hook.log"))
	if !strings.Contains(string(log), "vigil hook codex: Stop: start the sidecar: ") || !strings.Contains(string(log), filepath.Join(filepath.Dir(bin), "vigil")) {
		t.Fatalf("hook.log: %q", log)
	}
	for _, args := range [][]string{nil, {"aider"}, {"hook", "codex"}} {
		cmd := exec.Command(bin, args...)
		out, err := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "usage: vigil-hook claude-code|codex") {
			t.Errorf("vigil-hook %q: %v, %q", args, err, out)
		}
	}
}
