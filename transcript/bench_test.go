package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Benchmarks of the readers alone on large inputs built from the real
// recordings in testdata: each recording's conversation repeated with
// fresh ids until the input is 8 or 32 MiB, read from a file (generated
// once into $TMPDIR/vigil-transcript-bench/). They report
// MB/s of input, what is allocated per MB of input (constant when memory
// is flat in the file's size), and the peak live heap above the input
// itself, which must not grow with it. Pinned to one core, as
// docs/benchmarks.md measures them:
//
//	go test -c -o /tmp/transcript.test ./transcript/
//	cd transcript && taskset -c 1 /tmp/transcript.test -test.run '^$' -test.bench 'BenchmarkRead' -test.benchtime 4x -test.cpu 1

// benchSizes are the input sizes, in MiB: two, to show that memory does
// not grow with the file.
var benchSizes = []int{8, 32}

// benchIDKeys are the members whose string values are ids that must be
// fresh in each repetition, so that the repeated conversation is a longer
// run and not the same entries again.
var benchIDKeys = map[string]bool{
	"id": true, "uuid": true, "parentUuid": true, "parentId": true, "logicalParentUuid": true,
	"leafUuid": true, "messageId": true, "promptId": true, "headUuid": true, "call_id": true,
	"tool_use_id": true, "toolCallId": true, "tool_call_id": true, "firstKeptEntryId": true,
	"fromId": true, "sourceToolAssistantUUID": true, "sourceToolUseID": true, "toolUseID": true,
	"parentToolUseID": true, "cause": true, "llm_response_id": true, "instance_id": true,
}

// benchIDs collects the id strings of a JSON value.
func benchIDs(v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && benchIDKeys[k] && s != "" {
				into[s] = true
			}
			benchIDs(x, into)
		}
	case []any:
		for _, x := range v {
			benchIDs(x, into)
		}
	}
}

// benchFresh returns a function that rewrites the ids of lines (JSON
// text) for repetition k: every quoted id gets the suffix "-rK".
func benchFresh(lines [][]byte) func(k int, line []byte) []byte {
	ids := map[string]bool{}
	for _, l := range lines {
		var v any
		if json.Unmarshal(l, &v) == nil {
			benchIDs(v, ids)
		}
	}
	var cache sync.Map
	return func(k int, line []byte) []byte {
		if k == 0 {
			return line
		}
		rp, ok := cache.Load(k)
		if !ok {
			var pairs []string
			for id := range ids {
				q, _ := json.Marshal(id)
				pairs = append(pairs, string(q), string(q[:len(q)-1])+"-r"+strconv.Itoa(k)+`"`)
			}
			rp, _ = cache.LoadOrStore(k, strings.NewReplacer(pairs...))
		}
		return []byte(rp.(*strings.Replacer).Replace(string(line)))
	}
}

// benchJSONL builds a JSON Lines input of about size bytes from a
// recording: its first head lines once, then the rest repeated with fresh
// ids.
func benchJSONL(tb testing.TB, rel string, head, size int) []byte {
	lines := jlLines(jlTestdata(tb, rel))
	for i := range lines {
		lines[i] = bytes.TrimSuffix(lines[i], []byte("\n"))
	}
	fresh := benchFresh(lines[head:])
	var out bytes.Buffer
	for _, l := range lines[:head] {
		out.Write(l)
		out.WriteByte('\n')
	}
	for k := 0; out.Len() < size; k++ {
		for _, l := range lines[head:] {
			out.Write(fresh(k, l))
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// benchMembers returns a JSON object's members in order.
func benchMembers(tb testing.TB, data []byte) (keys []string, vals []json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		tb.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			tb.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			tb.Fatal(err)
		}
		keys, vals = append(keys, tok.(string)), append(vals, v)
	}
	return keys, vals
}

// benchDoc builds a JSON document of about size bytes from a recording:
// the arrays under the keys in repeat keep their first keep elements once
// and repeat the rest (with fresh ids) until the document is large enough;
// the other members are copied.
func benchDoc(tb testing.TB, data []byte, repeat []string, keep, size int) []byte {
	keys, vals := benchMembers(tb, data)
	arrays := map[string][]json.RawMessage{}
	grown := 0
	for i, k := range keys {
		for _, r := range repeat {
			if k == r {
				var els []json.RawMessage
				if err := json.Unmarshal(vals[i], &els); err != nil {
					tb.Fatal(err)
				}
				arrays[k] = els
				grown += len(vals[i])
			}
		}
	}
	times := max(1, size/max(1, grown))
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			out.WriteByte(',')
		}
		q, _ := json.Marshal(k)
		out.Write(q)
		out.WriteByte(':')
		els, ok := arrays[k]
		if !ok {
			out.Write(vals[i])
			continue
		}
		raw := make([][]byte, len(els))
		for j := range els {
			raw[j] = els[j]
		}
		fresh := benchFresh(raw[min(keep, len(raw)):])
		out.WriteByte('[')
		n := 0
		put := func(el []byte) {
			if n > 0 {
				out.WriteByte(',')
			}
			out.Write(el)
			n++
		}
		for _, el := range raw[:min(keep, len(raw))] {
			put(el)
		}
		for rep := range times {
			for _, el := range raw[min(keep, len(raw)):] {
				put(fresh(rep, el))
			}
		}
		out.WriteByte(']')
	}
	out.WriteByte('}')
	return out.Bytes()
}

// benchInput returns the path of the input of the given size for the
// running benchmark, generated once by make into a temporary folder and
// kept there for later runs. Inputs are read from files, as vigil review
// reads them, so that the input itself is not on the heap (where it
// would also raise the collector's target in proportion to its size).
func benchInput(b *testing.B, size int, make func(size int) []byte) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "vigil-transcript-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	name := strings.NewReplacer("/", "-", "Benchmark", "").Replace(b.Name())
	path := filepath.Join(dir, name)
	if fi, err := os.Stat(path); err == nil && fi.Size() >= int64(size) {
		return path
	}
	if err := os.WriteFile(path+".tmp", make(size), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
	return path
}

// peakLiveHeap samples the live heap every millisecond until stop is
// called and returns the largest value seen.
func peakLiveHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done, finished := make(chan struct{}), make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
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

// cpuTime returns the CPU time the process has used. Throughput per CPU
// second is steadier than per wall second on a machine shared with other
// work; with -cpu 1 it is the throughput of one core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchRead reads inputs of each size made by make, which must read as
// format f, and reports throughput and memory.
func benchRead(b *testing.B, name string, f Format, make func(size int) []byte) {
	for _, mb := range benchSizes {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			path := benchInput(b, mb<<20, make)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			stop := peakLiveHeap()
			entries := 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				file, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				rd, err := NewReader(file, name)
				if err != nil {
					b.Fatal(err)
				}
				entries = 0
				for _, err := range rd.Items() {
					if err != nil {
						b.Fatal(err)
					}
					entries++
				}
				file.Close()
				if rd.Format() != f {
					b.Fatalf("read as %s, want %s", rd.Format(), f)
				}
			}
			b.StopTimer()
			cpu := cpuTime() - cpu0
			peak := stop()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			mbs := float64(fi.Size()) / 1e6
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/mbs, "B/MB")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/mbs, "allocs/MB")
			b.ReportMetric(float64(int64(peak)-int64(before.HeapAlloc))/1e6, "peak-MB")
			b.ReportMetric(float64(entries), "items")
			b.ReportMetric(mbs*float64(b.N)/cpu.Seconds(), "MB/cpu-s")
		})
	}
}

func BenchmarkReadVigil(b *testing.B) {
	benchRead(b, "session.jsonl", FormatVigil, func(size int) []byte {
		return benchJSONL(b, "vigil/recording.jsonl", 1, size)
	})
}

func BenchmarkReadClaudeCode(b *testing.B) {
	benchRead(b, "session.jsonl", FormatClaudeCode, func(size int) []byte {
		return benchJSONL(b, "claude-code/recording.jsonl", 0, size)
	})
}

func BenchmarkReadCodex(b *testing.B) {
	benchRead(b, "rollout.jsonl", FormatCodex, func(size int) []byte {
		return benchJSONL(b, "codex/rollout.jsonl", 1, size)
	})
}

func BenchmarkReadPi(b *testing.B) {
	benchRead(b, "session.jsonl", FormatPi, func(size int) []byte {
		return benchJSONL(b, "pi/recording.jsonl", 1, size)
	})
}

func BenchmarkReadOmp(b *testing.B) {
	benchRead(b, "session.jsonl", FormatOmp, func(size int) []byte {
		return benchJSONL(b, "omp/recording.jsonl", 2, size)
	})
}

// The document formats are read from real runs, which the shared corpus
// beside the project holds (../shared/corpus/README.md): the project's own
// fixtures are a few KB.

func BenchmarkReadMiniSWEAgent(b *testing.B) {
	data := corpusFile(b, "mini-swe-agent/deepseek_chat_test_1-100__django__django-13658.traj.json")
	benchRead(b, "run.traj.json", FormatMiniSWEAgent, func(size int) []byte {
		return benchDoc(b, data, []string{"messages"}, 2, size)
	})
}

func BenchmarkReadSWEAgent(b *testing.B) {
	data := corpusFile(b, "swe-agent/BabyEncryption.traj")
	benchRead(b, "run.traj", FormatSWEAgent, func(size int) []byte {
		return benchDoc(b, data, []string{"trajectory", "history"}, 2, size)
	})
}

// corpusFile returns a file of the shared corpus, read in place; the test
// is skipped when the corpus is not there.
func corpusFile(tb testing.TB, rel string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", rel))
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("the shared corpus is not beside the project: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func BenchmarkReadOpenHands(b *testing.B) {
	// Evaluation output: one run per line, each with its history.
	benchRead(b, "output.jsonl", FormatOpenHands, func(size int) []byte {
		return benchJSONL(b, "openhands/calc-resolver.jsonl", 0, size)
	})
}

// BenchmarkReadRecording reads each recording in testdata as it is, a few
// KB to a few hundred: what a file costs beyond its lines (detection, the
// run's header read from the file's head, buffers).
func BenchmarkReadRecording(b *testing.B) {
	for _, rec := range append(append([]struct {
		path   string
		format Format
	}{}, fastRecordings...), docRecordings...) {
		data := jlTestdata(b, rec.path)
		b.Run(strings.ReplaceAll(rec.path, "/", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for range b.N {
				rd, err := NewReader(bytes.NewReader(data), filepath.Base(rec.path))
				if err != nil {
					b.Fatal(err)
				}
				for _, err := range rd.Items() {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
