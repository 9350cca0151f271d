package advisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

// BenchmarkStaleToolResults measures what eliding the advisor's stale tool
// results saves on a long run (docs/benchmarks.md): 40 reviews, each
// reading a different 6 KB file of the workspace, then closing. It prints
// the prompt tokens the advisor's requests carried and their cost at
// claude-sonnet-4-5's prices with fakellm's simulated prompt cache, the
// results elided and kept, side by side.
func BenchmarkStaleToolResults(b *testing.B) {
	const reviews = 40
	root := b.TempDir()
	var script strings.Builder
	script.WriteString("rules:\n  - steps:\n")
	for i := range reviews {
		body := strings.Repeat(fmt.Sprintf("// line of file %d, kept long enough to be read as a real source file would be\n", i), 70)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.go", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&script, "      - tool_calls:\n          - name: read\n            arguments: {path: \"f%02d.go\"}\n      - text: Nothing to add.\n", i)
	}
	price := llm.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75} // per million tokens
	for _, keep := range []bool{true, false} {
		name := map[bool]string{true: "kept", false: "elided"}[keep]
		b.Run(name, func(b *testing.B) {
			var u llm.Usage
			for b.Loop() {
				_, m := fakeServer(b, script.String())
				h := startRuntime(b, m, func(o *Options) {
					o.Roots = []string{root}
					o.KeepToolResults = keep
				})
				for i := range reviews {
					h.r.Notify(h.host.step(fmt.Sprintf("step %d: edited f%02d.go", i, i)))
					h.waitFor("a review", func(s Status) bool { return s.Reviews == i+1 })
				}
				u = h.r.Status().Usage
				h.r.Stop()
			}
			b.ReportMetric(float64(u.PromptTokens()), "prompt-tokens")
			b.ReportMetric(float64(u.CacheRead), "cache-read-tokens")
			b.ReportMetric(price.Cost(u), "USD")
		})
	}
}
