package stats_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vigil-dev/vigil/internal/stats"
	"github.com/vigil-dev/vigil/llm"
)

// FuzzScan puts arbitrary bytes where a session file, a subagent's session
// and an advisor transcript go: a scan never fails, and every file it
// cannot read whole is a problem, not an error.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":1,"id":"a","cwd":"/w","created":"2026-11-05T14:03:22.417Z"}` + "\n" +
		`{"type":"message","id":"1","parentId":null,"timestamp":"2026-11-05T14:03:25.120Z","message":{"role":"assistant","content":[]},"model":"fake/m","usage":{"input":5,"output":1}}` + "\n"))
	f.Add([]byte(`{"type":"session","version":1,"id":"a","cwd":"/w","created":"2026-11-05T14:03:22.417Z","parentSession":{"kind":"advisor","id":"x","path":"/p"}}` + "\n" + `{"type":"custom_message","id":"1"`))
	f.Add([]byte("not json\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		main := filepath.Join(root, "w", "2026-11-05T14-03-22.417Z_a.jsonl")
		art := filepath.Join(root, "w", "2026-11-05T14-03-22.417Z_a")
		if err := os.MkdirAll(art, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{main, filepath.Join(art, "task-1.jsonl"), filepath.Join(art, "__advisor.jsonl")} {
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		r, err := stats.Scan(root, stats.Options{Price: func(llm.Ref) (llm.Price, bool) { return llm.Price{Input: 1}, true }})
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		if r.Totals.Files+countUnreadable(r) != 3 {
			t.Errorf("%d files read and %d unreadable, want 3 in all", r.Totals.Files, countUnreadable(r))
		}
		if r.Totals.Sessions > 1 {
			t.Errorf("%d sessions from one session's files", r.Totals.Sessions)
		}
	})
}

func countUnreadable(r *stats.Report) int {
	n := 0
	for _, p := range r.Problems {
		if p.Kind == stats.ProblemUnreadable {
			n++
		}
	}
	return n
}
