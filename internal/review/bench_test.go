package review

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/transcript"
)

// writeSession writes a vigil session of about size bytes to path: a
// realistic mix of steps (reads of source files with a few KiB of
// output, test runs that fail with tracebacks, edits, searches, scripts
// written with here-documents), with now and then the same failing
// command three times in a row so that the detectors have something to
// report. It returns the number of steps.
func writeSession(path string, size int64) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"type":"session","version":1,"id":"b3nch0000000000","cwd":"/work/repo","created":"2026-11-30T01:00:00.000Z"}`+"\n")
	src := strings.Repeat("    def method(self, value):\n        return self.helper(value) + 42  # comment\n", 40)
	trace := "Traceback (most recent call last):\n" + strings.Repeat("  File \"/work/repo/pkg/query.py\", line 1234, in filter\n    return self._filter(False, args, kwargs)\n", 12) + "AssertionError: 3 != 4\n"
	var written int64
	parent := ""
	line := func(v map[string]any) {
		data, _ := json.Marshal(v)
		w.Write(data)
		w.WriteByte('\n')
		written += int64(len(data)) + 1
	}
	id := 0
	entry := func(role string, content []map[string]any) {
		id++
		e := map[string]any{"type": "message", "id": fmt.Sprintf("%08x", id), "timestamp": "2026-11-30T01:00:00.000Z",
			"message": map[string]any{"role": role, "content": content}}
		if parent == "" {
			e["parentId"] = nil
		} else {
			e["parentId"] = parent
		}
		if role == "assistant" {
			e["model"] = "fake/m"
		}
		parent = e["id"].(string)
		line(e)
	}
	entry("user", []map[string]any{{"type": "text", "text": "The tests fail. Find the bug and fix it."}})
	steps := 0
	for written < size {
		steps++
		var name, out string
		var args map[string]any
		isErr := false
		switch k := steps % 10; {
		case k == 0 || k == 4:
			name, args, out = "read", map[string]any{"path": fmt.Sprintf("pkg/mod%d.py", steps%37)}, src
		case k == 1 || k == 7 || (steps%97 >= 90 && steps%97 <= 92):
			name, args = "bash", map[string]any{"command": "cd /work/repo && python -m pytest tests/test_query.py -x 2>&1 | tail -40"}
			out, isErr = trace+fmt.Sprintf("1 failed, %d passed in 3.21s\n[exit code 1]", steps%50), true
		case k == 2:
			name, args, out = "edit", map[string]any{"path": fmt.Sprintf("pkg/mod%d.py", steps%37), "oldText": fmt.Sprintf("return x + %d", steps), "newText": fmt.Sprintf("return x + %d", steps+1)}, "Edited."
		case k == 3:
			name, args, out = "grep", map[string]any{"pattern": "def filter", "path": "pkg"}, strings.Repeat("pkg/query.py:900:    def filter(self, *args, **kwargs):\n", 20)
		case k == 5:
			name, args, out = "bash", map[string]any{"command": fmt.Sprintf("cat > /tmp/repro_%d.py << 'EOF'\nimport pkg\nprint(pkg.run(%d))\nEOF\npython /tmp/repro_%d.py", steps%3, steps, steps%3)}, fmt.Sprintf("%d\n", steps)
		case k == 6:
			name, args, out = "bash", map[string]any{"command": fmt.Sprintf("git log --oneline -n %d", 5+steps%7)}, strings.Repeat("abc1234 fix the filter path\n", 5+steps%7)
		default:
			name, args, out = "bash", map[string]any{"command": fmt.Sprintf("sed -n '%d,%dp' pkg/query.py", steps%400, steps%400+60)}, src[:1500]
		}
		call := fmt.Sprintf("call_%d", steps)
		entry("assistant", []map[string]any{
			{"type": "text", "text": fmt.Sprintf("Step %d: let me look at this next; the issue is in the filter path.", steps)},
			{"type": "tool_call", "id": call, "name": name, "arguments": args},
		})
		entry("user", []map[string]any{{"type": "tool_result", "id": call, "is_error": isErr, "content": []map[string]any{{"type": "text", "text": out}}}})
	}
	entry("assistant", []map[string]any{{"type": "text", "text": "Done."}})
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return steps + 1, nil
}

// benchFile returns a generated session of about mb MiB, made once in a
// temporary folder and kept there for later runs.
func benchFile(b *testing.B, mb int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "vigil-review-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("session-%dmb.jsonl", mb))
	if fi, err := os.Stat(path); err == nil && fi.Size() >= int64(mb)<<20 {
		return path
	}
	if _, err := writeSession(path+".tmp", int64(mb)<<20); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
	return path
}

// peakHeap samples the live heap every few milliseconds until stop is
// called, and returns the largest value seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// BenchmarkReviewThroughput reviews a generated vigil session of 32 and
// 128 MiB end to end (read, group into steps, every detector, timeline),
// reporting MB/s of file and the peak live heap, which must not grow
// with the file.
func BenchmarkReviewThroughput(b *testing.B) {
	for _, mb := range []int{32, 128} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			path := benchFile(b, mb)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			runtime.GC()
			stop := peakHeap()
			var res *Result
			for b.Loop() {
				res, err = File(context.Background(), path, Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(stop())/1e6, "peak-heap-MB")
			if res.Err != nil || len(res.Runs) != 1 || res.Runs[0].Steps < 1000 {
				b.Fatalf("review: err %v, %d runs", res.Err, len(res.Runs))
			}
			b.ReportMetric(float64(len(res.Runs[0].Findings)), "findings")
		})
	}
}

// BenchmarkReadSteps is the floor under BenchmarkReviewThroughput: the
// same 32 MB file read and grouped into steps, with no detectors and no
// timeline.
func BenchmarkReadSteps(b *testing.B) {
	path := benchFile(b, 32)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		tr, err := transcript.NewReader(f, path)
		if err != nil {
			b.Fatal(err)
		}
		var sp transcript.Stepper
		steps := 0
		for it, err := range tr.Items() {
			if err != nil {
				b.Fatal(err)
			}
			if it.Run == nil {
				steps += len(sp.Add(it.Entry))
			}
		}
		f.Close()
		if steps < 1000 {
			b.Fatalf("%d steps", steps)
		}
	}
}
