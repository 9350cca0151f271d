//go:build unix

package attach

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A project's settings file comes with the repository: one that is not a
// regular file, or is huge, is an error naming it, never a hang or an
// exhausted machine.
func TestHostileSettingsFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, []byte(`{"x": "`+strings.Repeat("a", MaxSettingsSize)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{fifo, "not a regular file"},
		{huge, "larger than"},
	} {
		if _, err := PlanAttach(c.file, ClaudeCode, "vigil", ""); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
			t.Errorf("%s: got %v, want an error naming it that says %q", c.file, err, c.want)
		}
		if st := statusOf(ClaudeCode, Project, c.file); st.Err == nil || !strings.Contains(st.Err.Error(), c.want) {
			t.Errorf("status of %s: got %v, want %q", c.file, st.Err, c.want)
		}
	}
}
