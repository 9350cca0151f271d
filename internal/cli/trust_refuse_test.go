package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vigil trust refuses the home folder, the root of the file system and a
// folder that does not exist, saying why; revoking a folder under a
// trusted one says it stays trusted, through what, and how to revoke it.
func TestTrustCommandRefusals(t *testing.T) {
	_, agentDir, work := fakeSetup(t, advisorScript("true", "unused"))
	home := filepath.Dir(agentDir) // vigilCommand's HOME
	run := func(args ...string) (string, string, error) {
		t.Helper()
		cmd := vigilCommand(agentDir, work, args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	for _, tt := range []struct{ dir, want string }{
		{"/", "root of the file system"},
		{home, "your home folder"},
		{filepath.Join(home, "nonexistent"), "does not exist"},
	} {
		out, stderr, err := run("trust", tt.dir)
		if err == nil || !strings.Contains(stderr, tt.want) {
			t.Errorf("vigil trust %s: %v, stdout %q, stderr %q; want a refusal saying %q", tt.dir, err, out, stderr, tt.want)
		}
	}
	if out, _, _ := run("trust", "--list"); strings.TrimSpace(out) != work {
		t.Errorf("trusted folders after the refusals: %q, want only %s", out, work)
	}

	sub := filepath.Join(work, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := run("trust", "--revoke", sub)
	if err == nil || !strings.Contains(stderr, "stays trusted through "+work) || !strings.Contains(stderr, "vigil trust --revoke "+work) {
		t.Errorf("revoking a folder under a trusted one: %v, stderr %q", err, stderr)
	}
	if _, _, err := run("trust", sub); err != nil {
		t.Fatal(err)
	}
	out, _, err := run("trust", "--revoke", sub)
	if err != nil || !strings.Contains(out, "stays trusted through "+work) {
		t.Errorf("revoking a listed folder under a trusted one: %v, stdout %q; want it to say it stays trusted through %s", err, out, work)
	}
}
