package history_test

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/session"
)

// TestOutcomeAsReported checks that a result the harness reports as failed
// renders as an error, whether the reader set its error flag or the text
// alone says so: Codex's sandbox refusals, exit codes other than 0 in the
// harnesses' own markers, "permission denied", a declined approval, an
// edit the tool did not apply. Text that only mentions such words renders
// ok.
func TestOutcomeAsReported(t *testing.T) {
	for _, c := range []struct {
		name, tool, out string
		failed          bool
	}{
		{"codex sandbox with exit code", "shell", "failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 2, stdout: , stderr: usage: x\n", true},
		{"codex sandbox without exit code", "shell", "failed in sandbox: sandbox error: command was killed by a signal", true},
		{"codex execution error", "shell", "execution error: Io(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })", true},
		{"codex exit code header", "exec_command", "Exit code: 1\nWall time: 0.4 seconds\nOutput:\nERROR: tasks.md not found\n", true},
		{"codex exit code 0 header", "exec_command", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nPermission denied\n", false},
		{"unified exec", "exec_command", "Process exited with code 2\nOriginal token count: 5\nOutput:\nboom\n", true},
		{"codex declined patch", "apply_patch", "patch rejected by user", true},
		{"codex declined command", "shell", "exec command rejected by user", true},
		{"claude declined", "Bash", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", true},
		{"permission denied", "bash", "bash: line 1: ./deploy.sh: Permission denied", true},
		{"node EACCES", "write", "Error: EACCES: permission denied, open '/etc/hosts'", true},
		{"mini-swe returncode", "bash", "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n</output>", true},
		{"mini-swe returncode 0", "bash", "<returncode>0</returncode>\n<output>\nok\n</output>", false},
		{"vigil exit code", "bash", "FAIL\tparser\t0.01s\n[exit code 1]", true},
		{"pi exit code", "bash", "npm ERR! missing script: tset\n\nCommand exited with code 1", true},
		{"openhands exit code", "execute_bash", "ls: cannot access 'x'\n[The command completed with exit code 2.]", true},
		{"apply_patch context", "apply_patch", "apply_patch verification failed: Failed to find expected lines in src/a.go:\nreturn a-b", true},
		{"str_replace not applied", "str_replace_editor", "No replacement was performed, old_str `x = 1` did not appear verbatim in /r/a.py.", true},
		{"plain success", "bash", "ok  \tparser\t0.012s", false},
		{"mentions exit code mid-line", "read", "docs: the checker stops with exit code: 1 when it finds a problem", false},
		{"file named permission denied", "find", "src/permission_denied.go\nsrc/permission_denied_test.go", false},
		{"declined words in a search", "grep", "src/api.ts:12: // the request was rejected by user code, retry\nsrc/api.ts:40: ok", false},
		{"refusal words outside an edit", "read", "No replacement was performed, says the doc", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			entries := []session.Entry{agentMsg(call("c1", c.tool, map[string]any{"command": "x"})), result("c1", false, c.out)}
			got := history.Render(entries, history.Options{WatchedRoles: true})
			checkStructure(t, got, false)
			wantStatus := "⇒ ok"
			if c.failed {
				wantStatus = "⇒ error"
			}
			if !strings.Contains(got, wantStatus) {
				t.Errorf("got\n%s\nwant a tool line with %q", got, wantStatus)
			}
			// A result whose call came in an earlier delta is judged the
			// same way (for the textual shapes that need no tool).
			if c.tool != "apply_patch" && c.tool != "str_replace_editor" && c.tool != "read" {
				orphan := history.Render([]session.Entry{result("c1", false, c.out)}, history.Options{WatchedRoles: true})
				if !strings.Contains(orphan, wantStatus) {
					t.Errorf("earlier call: got\n%s\nwant %q", orphan, wantStatus)
				}
			}
		})
	}
}
