package transcript

import "testing"

// TestCodexSandboxColonOutput: older Codex (0.4x) reports a command its
// sandbox ran and failed as "failed in sandbox: STDERR", with a colon and
// no exit code; that is a failure like the newer "failed in sandbox
// LinuxSeccomp …".
func TestCodexSandboxColonOutput(t *testing.T) {
	for _, out := range []string{
		`"failed in sandbox: pattern not found for general replacement"`,
		`"failed in sandbox: "`,
	} {
		if _, failed := cxOutput([]byte(out)); !failed {
			t.Errorf("cxOutput(%s) failed = false, want true", out)
		}
	}
}
