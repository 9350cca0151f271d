package history_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// longEditSession generates a long coding session in the shapes the
// agents record, one step a delta: of every 10 steps, 4 edit (Claude Code's
// Edit of 2 to 12 lines, vigil's edit, a MultiEdit of two replacements),
// 1 writes a file of 40 to 400 lines, 1 applies a Codex patch, and 4 run
// or read (tests with 1 to 3 KB of output, a read of a source file). It is
// the same every call.
func longEditSession(steps int) [][]session.Entry {
	src := func(n, seed int) string {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "\tv%d := compute(%d, %q) // step %d\n", i, seed*31+i, "field", seed)
		}
		return sb.String()
	}
	edited := func(s string) string {
		return strings.Replace(strings.Replace(s, "compute(", "computeChecked(", 1), "// step", "// checked step", 1)
	}
	var deltas [][]session.Entry
	for i := range steps {
		id := fmt.Sprintf("c%04d", i)
		var c llm.Block
		out := "ok"
		switch i % 10 {
		case 0, 3:
			old := src(2+i%11, i)
			c = call(id, "Edit", map[string]any{"file_path": fmt.Sprintf("internal/pkg%d/file.go", i%7), "old_string": old, "new_string": edited(old)})
			out = "The file has been updated."
		case 5:
			old := src(4, i)
			c = call(id, "edit", map[string]any{"path": "cmd/main.go", "old_text": old, "new_text": edited(old)})
		case 8:
			a, b := src(3, i), src(5, i+1)
			c = call(id, "MultiEdit", map[string]any{"file_path": "api/handler.go", "edits": []any{
				map[string]any{"old_string": a, "new_string": edited(a)},
				map[string]any{"old_string": b, "new_string": edited(b)},
			}})
		case 1:
			c = call(id, "Write", map[string]any{"file_path": fmt.Sprintf("gen/file%d.go", i), "content": "package gen\n\n" + src(40+(i*37)%360, i)})
			out = "File created successfully."
		case 6:
			old := src(3, i)
			patch := "*** Begin Patch\n*** Update File: lib/util.go\n@@ func util()\n" + prefixLines("-", old) + prefixLines("+", edited(old)) + "*** End Patch"
			c = call(id, "apply_patch", map[string]any{"input": patch})
			out = "Success. Updated the following files:\nM lib/util.go"
		case 2, 7:
			c = call(id, "bash", map[string]any{"command": "go test ./internal/... 2>&1 | tail -40"})
			out = strings.Repeat("=== RUN   TestSomething\n--- PASS: TestSomething (0.00s)\n", 20+i%40) + "ok  \tpkg\t0.31s"
		default:
			c = call(id, "read", map[string]any{"path": "internal/pkg/file.go"})
			out = src(60, i)
		}
		deltas = append(deltas, []session.Entry{
			agentMsg(llm.Text(fmt.Sprintf("Step %d: next change.", i)), c),
			result(id, false, out),
		})
	}
	return deltas
}

func prefixLines(p, s string) string {
	var sb strings.Builder
	for l := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		sb.WriteString(p + l + "\n")
	}
	return sb.String()
}

// BenchmarkEditTokens renders a generated 1,000-step session with many
// edits as the advisor receives it, one update a step, without changes
// (MaxEditLines 0, the tool line alone, as before) and with them (the
// advisor's options), and reports the advisor input it makes: bytes/4
// tokens per step and per run, and the tokens the changes add per step
// that makes one (an edit, a write or a patch: 600 of the 1,000).
func BenchmarkEditTokens(b *testing.B) {
	const steps = 1000
	deltas := longEditSession(steps)
	edits := 0
	for i := range steps {
		if i%10 != 2 && i%10 != 7 && i%10 != 4 && i%10 != 9 {
			edits++
		}
	}
	red := history.NewRedactor(benchEnv(), nil)
	render := func(lines int) int {
		opts := history.AdvisorOptions(red)
		opts.MaxEditLines = lines
		var r history.Renderer
		n := 0
		for _, d := range deltas {
			n += len(r.Update(d, opts))
		}
		return n
	}
	added := float64(render(history.DefaultMaxEditLines)-render(0)) / 4 / float64(edits)
	for _, c := range []struct {
		name  string
		lines int
	}{{"before", 0}, {"after", history.DefaultMaxEditLines}} {
		b.Run(c.name, func(b *testing.B) {
			bytes := 0
			for b.Loop() {
				bytes = render(c.lines)
			}
			b.ReportMetric(float64(bytes)/4/steps, "tokens/step")
			b.ReportMetric(float64(bytes)/4, "tokens/run")
			if c.lines > 0 {
				b.ReportMetric(added, "added-tokens/change")
			}
		})
	}
}
