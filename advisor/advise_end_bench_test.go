package advisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

// BenchmarkAdviseEndsReview measures what ending a review after its
// advise calls saves (docs/benchmarks.md): 40 reviews of 1 KB steps, every
// fourth advising (10 distinct notes), the others closing with a short
// text. It prints the advisor's model requests, the prompt and output
// tokens they carried and their cost at claude-sonnet-4-5's prices with
// fakellm's simulated prompt cache, with the review ending at its advise
// call (the default) and going on to a closing "Sent." as before
// (ContinueAfterAdvise), side by side.
func BenchmarkAdviseEndsReview(b *testing.B) {
	const reviews = 40
	script := func(closing bool) string {
		var s strings.Builder
		s.WriteString("rules:\n  - steps:\n")
		for i := range reviews {
			if i%4 != 3 {
				s.WriteString("      - text: Nothing to add.\n")
				continue
			}
			fmt.Fprintf(&s, "      - tool_calls: [{name: advise, arguments: {note: \"Note %d: step %d reruns the same failing command; read its error first.\", severity: nit}}]\n", i, i)
			if closing {
				s.WriteString("      - text: Sent.\n")
			}
		}
		return s.String()
	}
	price := llm.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75} // per million tokens
	for _, cont := range []bool{true, false} {
		name := map[bool]string{true: "continue", false: "end"}[cont]
		b.Run(name, func(b *testing.B) {
			var u llm.Usage
			var reqs int
			for b.Loop() {
				srv, m := fakeServer(b, script(cont))
				h := startRuntime(b, m, func(o *Options) { o.ContinueAfterAdvise = cont })
				for i := range reviews {
					h.r.Notify(h.host.step(fmt.Sprintf("step %d: ", i) + strings.Repeat("ran make test; 3 tests failed in parser_test.go. ", 20)))
					h.waitFor("a review", func(s Status) bool { return s.Reviews == i+1 })
				}
				if st := h.r.Status(); st.Delivered != reviews/4 {
					b.Fatalf("%d notes delivered, want %d", st.Delivered, reviews/4)
				}
				u, reqs = h.r.Status().Usage, len(srv.Requests())
				h.r.Stop()
			}
			b.ReportMetric(float64(reqs), "requests")
			b.ReportMetric(float64(u.PromptTokens()), "prompt-tokens")
			b.ReportMetric(float64(u.Output), "output-tokens")
			b.ReportMetric(price.Cost(u), "USD")
		})
	}
}
