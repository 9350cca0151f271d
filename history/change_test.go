package history_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
)

// TestChange: the diff Render shows under an edit's tool line, without
// its fence, cut like it, and nothing for a call that changes no file.
func TestChange(t *testing.T) {
	edit := json.RawMessage(`{"file_path":"calc.py","old_string":"def add(a, b):\n    return a - b\n","new_string":"def add(a, b):\n    return a + b\n"}`)
	if got, want := history.Change("Edit", edit, 300, nil), "@@\n def add(a, b):\n-    return a - b\n+    return a + b"; got != want {
		t.Errorf("Change(Edit) = %q, want %q", got, want)
	}
	var long strings.Builder
	for i := range 10 {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	write, _ := json.Marshal(map[string]string{"path": "f.txt", "content": long.String()})
	if got, want := history.Change("write", write, 4, nil), "+line 0\n+line 1\n[vigil cut 6 of the change's 10 lines here]\n+line 8\n+line 9"; got != want {
		t.Errorf("Change(write) cut = %q, want %q", got, want)
	}
	secret := json.RawMessage(`{"path":".env","content":"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"}`)
	if got := history.Change("write", secret, 300, history.NewRedactor(nil, nil)); strings.Contains(got, "wJalrXUtnFEMI") || !strings.Contains(got, "[REDACTED") {
		t.Errorf("Change did not redact: %q", got)
	}
	for _, c := range []struct {
		tool string
		args string
	}{{"bash", `{"command":"ls"}`}, {"read", `{"path":"x"}`}, {"Edit", `not json`}} {
		if got := history.Change(c.tool, json.RawMessage(c.args), 300, nil); got != "" {
			t.Errorf("Change(%s, %s) = %q, want nothing", c.tool, c.args, got)
		}
	}
}
