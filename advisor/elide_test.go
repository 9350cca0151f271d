package advisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRuntimeElidesStaleToolResults checks that the advisor's tool results
// of an earlier review reach later requests as a marker, while the current
// review's, and its notes, stay whole; and that KeepToolResults keeps them.
func TestRuntimeElidesStaleToolResults(t *testing.T) {
	const script = `
rules:
  - steps:
      - tool_calls:
          - name: read
            arguments: {path: "parser.go"}
      - text: Nothing to add.
      - tool_calls:
          - name: advise
            arguments: {note: "Run the parser tests before committing.", severity: concern}
      - text: Nothing to add.
`
	const content = "func Parse(s string) (Node, error) { return parseExpr(s) } // UNIQUE-MARK"
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "elided", true: "kept"}[keep], func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "parser.go"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			srv, m := fakeServer(t, script)
			h := startRuntime(t, m, func(o *Options) {
				o.Roots = []string{root}
				o.KeepToolResults = keep
			})
			for i, step := range []string{"edited parser.go", "committing", "pushed"} {
				h.r.Notify(h.host.step(step))
				h.waitFor("a review", func(s Status) bool { return s.Reviews == i+1 })
			}
			reqs := srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 4", len(reqs))
			}
			// Request 2 is the first review's, after its read: the result is
			// whole. Requests 3-4 are later reviews' (the second review ends
			// with its advise call).
			if !strings.Contains(string(reqs[1].Body), "UNIQUE-MARK") {
				t.Errorf("the read's result is missing from its own review's request:\n%s", reqs[1].Body)
			}
			for i := 2; i < 4; i++ {
				body := string(reqs[i].Body)
				whole := strings.Contains(body, "UNIQUE-MARK")
				marker := strings.Contains(body, `the result of read(\"parser.go\") from an earlier review was elided`)
				if keep && (!whole || marker) || !keep && (whole || !marker) {
					t.Errorf("request %d: result whole %v, marker %v (keep %v):\n%s", i+1, whole, marker, keep, body)
				}
				if i == 3 && !strings.Contains(body, "Run the parser tests before committing.") {
					t.Errorf("request 4 lost the earlier review's note:\n%s", body)
				}
			}
		})
	}
}
