package rules

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/transcript"
)

// benchSteps builds a run that looks like a real one: reads of source
// files with a few KiB of output, test runs with tracebacks, edits through
// the edit tool and sed, scripts written with here-documents, and searches.
func benchSteps(n int) ([]transcript.Step, int) {
	src := strings.Repeat("    def method(self, value):\n        return self.helper(value) + 42  # comment\n", 60)
	trace := "Traceback (most recent call last):\n" + strings.Repeat("  File \"/testbed/django/db/models/query.py\", line 1234, in filter\n    return self._filter_or_exclude(False, args, kwargs)\n", 20) + "AssertionError: 3 != 4\n"
	var specs []st
	for i := 0; i < n; i++ {
		var c call
		switch i % 8 {
		case 0:
			c = sh(fmt.Sprintf("cd /testbed && sed -n '%d,%dp' django/db/models/query.py", i, i+80), "<returncode>0</returncode>\n<output>\n"+src+"</output>", false)
		case 1:
			c = sh("cd /testbed && python -m pytest tests/queries/test_qs.py -x 2>&1 | tail -80", "<returncode>1</returncode>\n<output>\n"+trace+fmt.Sprintf("1 failed, %d passed in 3.21s\n</output>", i), false)
		case 2:
			c = tool("str_replace_editor", map[string]any{"command": "str_replace", "path": "/testbed/django/db/models/query.py",
				"old_str": fmt.Sprintf("return x + %d", i), "new_str": fmt.Sprintf("return x + %d", i+1)}, "The file has been edited.", false)
		case 3:
			c = sh(fmt.Sprintf("grep -rn 'def filter' django/ | head -%d", 20+i%5), strings.Repeat("django/db/models/query.py:900:    def filter(self, *args, **kwargs):\n", 20), false)
		case 4:
			c = sh(fmt.Sprintf("cat > /testbed/repro_%d.py << 'EOF'\nimport django\nfrom django.conf import settings\nsettings.configure()\nprint(%d)\nEOF\npython /testbed/repro_%d.py", i%3, i, i%3), fmt.Sprintf("<returncode>0</returncode>\n<output>\n%d\n</output>", i), false)
		case 5:
			c = sh(fmt.Sprintf("sed -i 's/value + %d/value + %d/' django/db/models/query.py", i, i+1), "<returncode>0</returncode>\n<output>\n</output>", false)
		case 6:
			c = tool("Read", map[string]any{"file_path": "/repo/internal/x.go", "offset": i, "limit": 200}, src, false)
		case 7:
			c = tool("exec_command", map[string]any{"cmd": []string{"bash", "-lc", "go test ./... 2>&1 | tail -30"}}, "ok  \tpkg/a\t0.12s\nFAIL\tpkg/b\t0.3s\nProcess exited with code 1", false)
		}
		specs = append(specs, say("Let me look at this next; the issue is in the filter path.", c))
	}
	steps := build(specs...)
	size := 0
	for _, s := range steps {
		size += stepBytes(s)
	}
	return steps, size
}

// stepBytes approximates how many bytes of transcript a step is.
func stepBytes(s transcript.Step) int {
	n := len(s.Text())
	for _, c := range s.Calls() {
		n += len(c.Arguments)
		if r, ok := s.Result(c.ID); ok {
			n += len(resultText(r))
		}
	}
	raw, _ := json.Marshal(s.Reply.Body)
	return max(n, len(raw)/2)
}

// BenchmarkEngineObserve measures the engine's cost per step on a
// realistic mix of steps; its MB/s is transcript text per second, and
// must stay well above the review's 200 MB/s per core budget, since
// reading the transcript costs far more.
func BenchmarkEngineObserve(b *testing.B) {
	steps, size := benchSteps(512)
	b.SetBytes(int64(size / len(steps)))
	b.ReportAllocs()
	e := New(Settings{})
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		st := steps[i%len(steps)]
		st.N = i + 1
		e.Observe(st)
	}
}

// BenchmarkActions measures the normaliser alone.
func BenchmarkActions(b *testing.B) {
	steps, size := benchSteps(512)
	b.SetBytes(int64(size / len(steps)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Actions(&steps[i%len(steps)])
	}
}
