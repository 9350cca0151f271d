package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder's settings that turn the advisor on and pick its model wait
// for vigil trust: until then vigil says so and the advisor model is never
// called; once trusted it runs, and vigil says the folder overrides the
// user's settings.
func TestProjectSettingsNeedTrust(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, advisorScript("false", "ADVICE-trusted"))
	addAdvisorModel(t, agentDir)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\nmodelRoles:\n  advisor: fake/adv\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := vigilCommand(agentDir, work, args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("vigil %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	advisorCalls := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if r.Model == "adv" {
				n++
			}
		}
		return n
	}

	out, _ := run("trust", "--revoke")
	if !strings.Contains(out, "No longer trusted: ") {
		t.Errorf("trust --revoke said %q", out)
	}
	_, stderr := run("-p", "-m", "fake/m", "run false until it works")
	for _, w := range []string{"would set advisor.enabled: true (line 2), modelRoles.advisor: fake/adv (line 5); not applied, because this folder is not trusted", "vigil trust " + work} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if n := advisorCalls(); n != 0 {
		t.Errorf("the untrusted folder's advisor model was called %d times", n)
	}

	out, _ = run("trust")
	if !strings.Contains(out, "Trusted: "+work) || !strings.Contains(out, "overrides your settings (the folder is trusted): advisor.enabled: true") {
		t.Errorf("vigil trust said %q", out)
	}
	if out, _ := run("trust", "--list"); strings.TrimSpace(out) != work {
		t.Errorf("trust --list = %q, want %s", out, work)
	}
	_, stderr = run("-p", "-m", "fake/m", "run false until it works")
	if !strings.Contains(stderr, "overrides your settings (the folder is trusted)") {
		t.Errorf("a trusted override is not shown:\n%s", stderr)
	}
	if advisorCalls() == 0 {
		t.Error("the trusted folder's advisor never ran")
	}
}
