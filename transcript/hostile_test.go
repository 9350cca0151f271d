package transcript

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The hostile-input suite: every format's reader fed what an attacker or
// an accident can put in a file (a 200 MB line, nesting a million deep,
// invalid UTF-8, raw control characters, a cut-off file, binary garbage,
// gzip bombs). Each case must end in bounded time and memory with a
// clear error or a note, or, for input that is valid after all, read.
// What the file system can do (FIFOs, devices, symlink loops) is
// internal/review's suite, which opens files.

// hostileTime is how long one case may take; the race detector slows
// the scanners several times over, so it gets more.
func hostileTime() time.Duration {
	if raceEnabled {
		return 20 * time.Second
	}
	return 2 * time.Second
}

// hostileMem is how large the heap may grow in one case: 256 MiB, or 3
// times the input (as stored) when that is larger.
func hostileMem(input int64) uint64 { return max(256<<20, 3*uint64(input)) }

// hostileSample is a valid transcript of one format, with the places
// where hostile bytes are put in it.
type hostileSample struct {
	format Format
	name   string // the file name the reader is given
	data   []byte
	// str is an offset inside a string value; val one where a value
	// followed by sep may be inserted.
	str, val int
	sep      string
}

// hostileSamples returns one real recording per format from testdata.
func hostileSamples(t *testing.T) []hostileSample {
	t.Helper()
	type src struct {
		format Format
		path   string
		name   string
		array  string // for a JSON document: what opens the array values go in
	}
	srcs := []src{
		{FormatVigil, "vigil/recording.jsonl", "session.jsonl", ""},
		{FormatClaudeCode, "claude-code/recording.jsonl", "e263d154.jsonl", ""},
		{FormatCodex, "codex/rollout.jsonl", "rollout-2026-11-30.jsonl", ""},
		{FormatPi, "pi/recording.jsonl", "session.jsonl", ""},
		{FormatOmp, "omp/recording.jsonl", "session.jsonl", ""},
		{FormatSWEAgent, "swe-agent/calc-text.traj", "calc-text.traj", `"trajectory": [`},
		{FormatMiniSWEAgent, "mini-swe-agent/calc.traj.json", "calc.traj.json", `"messages": [`},
		{FormatOpenHands, "openhands/calc-chat.json", "calc-chat.json", `[`},
		{FormatOpenHands, "openhands/calc-v1.jsonl", "events.jsonl", ""},
		{FormatAider, "aider/calc.aider.chat.history.md", ".aider.chat.history.md", ""},
	}
	strValue := regexp.MustCompile(`":\s*"[A-Za-z]`)
	var out []hostileSample
	for _, s := range srcs {
		data, err := os.ReadFile(filepath.Join("testdata", s.path))
		if err != nil {
			t.Fatal(err)
		}
		h := hostileSample{format: s.format, name: s.name, data: data}
		mid := len(data) / 2
		switch {
		case s.format == FormatAider:
			h.val = mid + bytes.IndexByte(data[mid:], '\n') + 1
			h.str, h.sep = h.val, "\n"
		case s.array != "":
			h.val = bytes.Index(data, []byte(s.array)) + len(s.array)
			h.sep = ","
			loc := strValue.FindIndex(data[mid:])
			h.str = mid + loc[1] - 1
		default:
			h.val = mid + bytes.IndexByte(data[mid:], '\n') + 1
			h.sep = "\n"
			loc := strValue.FindIndex(data[mid:])
			h.str = mid + loc[1] - 1
		}
		out = append(out, h)
	}
	return out
}

// repeatReader yields n bytes of one byte, without holding them.
type repeatReader struct {
	block []byte
	n     int64
}

func repeated(b byte, n int64) io.Reader {
	return &repeatReader{block: bytes.Repeat([]byte{b}, 64<<10), n: n}
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	m := int(min(int64(len(p)), r.n))
	for k := 0; k < m; {
		k += copy(p[k:m], r.block)
	}
	r.n -= int64(m)
	return m, nil
}

// garbage returns n pseudo-random bytes, the same every run.
func garbage(n int) []byte {
	rng := rand.New(rand.NewPCG(13, 13))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// gzipOf compresses b as one gzip member.
func gzipOf(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// gzipBomb returns gzip members that inflate to n times 16 MiB of
// pattern: a member compressed once and repeated (gzip readers read
// concatenated members as one stream), so the bomb costs little to make.
func gzipBomb(pattern byte, n int) []byte {
	bombMembers.Do(func() {
		bombMember = map[byte][]byte{}
		for _, b := range []byte{'\n', 'a'} {
			bombMember[b] = gzipOf(bytes.Repeat([]byte{b}, 16<<20))
		}
	})
	return bytes.Repeat(bombMember[pattern], n)
}

var (
	bombMembers sync.Once
	bombMember  map[byte][]byte
)

// hostileCase makes one hostile input from a sample.
type hostileCase struct {
	name string
	// make returns the input and its size as stored.
	make func(h hostileSample) (io.Reader, int64)
	// valid says the input is still a transcript: it must read, without
	// an error (notes are allowed).
	valid bool
	// check, when set, says what else the outcome must be.
	check func(h hostileSample, out hostileOutcome) error
}

// isDocument reports whether the sample is a JSON document rather than
// lines.
func (h hostileSample) isDocument() bool { return h.sep == "," }

// skipsOrRefusesLong checks that a line too long was skipped with its
// note, and the rest of the file read, or, in a JSON document, that the
// value too long ended the reading with its error.
func skipsOrRefusesLong(h hostileSample, out hostileOutcome) error {
	if h.isDocument() {
		if out.err == nil || !strings.HasSuffix(out.err.Error(), "a JSON value longer than 64 MiB") {
			return fmt.Errorf("error %v, want a JSON value longer than 64 MiB", out.err)
		}
		return nil
	}
	for _, n := range out.notes {
		if n.What == skippedLongNote && out.err == nil {
			return nil
		}
	}
	return fmt.Errorf("notes %v, error %v; want the long line skipped and noted", out.notes, out.err)
}

func spliced(data []byte, at int, mid io.Reader, midSize int64) (io.Reader, int64) {
	return io.MultiReader(bytes.NewReader(data[:at]), mid, bytes.NewReader(data[at:])), int64(len(data)) + midSize
}

func insertedAt(data []byte, at int, s string) (io.Reader, int64) {
	return spliced(data, at, strings.NewReader(s), int64(len(s)))
}

// hugeSize is the size of a huge line: 200 MB, or under the race
// detector, which slows every copy, just over the readers' limit.
var hugeSize = func() int64 {
	if raceEnabled {
		return maxLine + 8<<20
	}
	return 200 << 20
}()

const deepLevel = 1_000_000

var hostileCases = []hostileCase{
	{name: "huge string in a valid file", check: skipsOrRefusesLong, make: func(h hostileSample) (io.Reader, int64) {
		return spliced(h.data, h.str, repeated('a', hugeSize), hugeSize)
	}},
	{name: "huge line without newline", make: func(h hostileSample) (io.Reader, int64) {
		return io.MultiReader(bytes.NewReader(h.data[:h.str]), repeated('a', hugeSize)), int64(h.str) + hugeSize
	}},
	{name: "huge first line", make: func(h hostileSample) (io.Reader, int64) {
		return io.MultiReader(strings.NewReader(`{"type":"user","content":"`), repeated('a', hugeSize)), hugeSize + 26
	}},
	{name: "nesting a million deep", make: func(h hostileSample) (io.Reader, int64) {
		return insertedAt(h.data, h.val, strings.Repeat("[", deepLevel)+strings.Repeat("]", deepLevel)+h.sep)
	}},
	{name: "objects nested a million deep", make: func(h hostileSample) (io.Reader, int64) {
		return insertedAt(h.data, h.val, strings.Repeat(`{"a":`, deepLevel)+"1"+strings.Repeat("}", deepLevel)+h.sep)
	}},
	{name: "invalid UTF-8", valid: true, make: func(h hostileSample) (io.Reader, int64) {
		return insertedAt(h.data, h.str, "\xff\xfe\xc3\x28\xed\xa0\x80")
	}},
	{name: "raw control characters", make: func(h hostileSample) (io.Reader, int64) {
		return insertedAt(h.data, h.str, "\x1b[31m\x1b]0;pwned\x07\x00\x7f\u009b\u202e")
	}},
	{name: "escaped control characters", valid: true, make: func(h hostileSample) (io.Reader, int64) {
		return insertedAt(h.data, h.str, `\u001b[31m\u001b]0;pwned\u0007\u0000\u007f\u009b\u202e`)
	}},
	{name: "truncated", make: func(h hostileSample) (io.Reader, int64) {
		cut := h.data[:len(h.data)*2/3]
		return bytes.NewReader(cut), int64(len(cut))
	}},
	{name: "binary garbage after the start", make: func(h hostileSample) (io.Reader, int64) {
		g := garbage(16 << 20)
		return io.MultiReader(bytes.NewReader(h.data[:h.val]), bytes.NewReader(g)), int64(h.val + len(g))
	}},
	{name: "binary garbage", make: func(h hostileSample) (io.Reader, int64) {
		return bytes.NewReader(garbage(16 << 20)), 16 << 20
	}},
	{name: "NUL bytes after the start", make: func(h hostileSample) (io.Reader, int64) {
		return io.MultiReader(bytes.NewReader(h.data[:h.val]), repeated(0, hugeSize)), int64(h.val) + hugeSize
	}},
	{name: "gzip bomb of newlines", make: func(h hostileSample) (io.Reader, int64) {
		// Between two values, where a reader must read through them.
		b := append(gzipOf(h.data[:h.val]), gzipBomb('\n', 256)...)
		b = append(b, gzipOf(h.data[h.val:])...)
		return bytes.NewReader(b), int64(len(b))
	}},
	{name: "gzip bomb in a string", make: func(h hostileSample) (io.Reader, int64) {
		b := append(gzipOf(h.data[:h.str]), gzipBomb('a', 256)...)
		b = append(b, gzipOf(h.data[h.str:])...)
		return bytes.NewReader(b), int64(len(b))
	}},
}

// hostileOutcome is what reading one hostile input came to.
type hostileOutcome struct {
	err     error // from NewReader or Items
	entries int
	notes   []Note
	// wall and cpu are the time it took. The bound is on the smaller:
	// wall time grows when the machine is shared, CPU time when the
	// collector works beside the reader.
	wall, cpu time.Duration
	// peak is the largest live heap seen above the heap before, sampled
	// every millisecond; alloc all that was allocated, an upper bound.
	peak, alloc uint64
}

func readHostile(r io.Reader, name string) (out hostileOutcome) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := peakLiveHeap()
	start, cpu0 := time.Now(), cpuTime()
	defer func() {
		out.wall, out.cpu = time.Since(start), cpuTime()-cpu0
		peak := stop()
		out.peak = peak - min(peak, before.HeapAlloc)
		runtime.ReadMemStats(&after)
		out.alloc = after.TotalAlloc - before.TotalAlloc
	}()
	rd, err := NewReader(r, name)
	if err != nil {
		out.err = err
		return out
	}
	for _, err := range rd.Items() {
		if err != nil {
			out.err = err
			break
		}
		out.entries++
	}
	out.notes = rd.Notes()
	return out
}

func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("reads several GB")
	}
	var worst struct {
		cpu, wall              time.Duration
		peak, alloc            uint64
		cpuAt, peakAt, allocAt string
	}
	for _, h := range hostileSamples(t) {
		for _, c := range hostileCases {
			t.Run(fmt.Sprintf("%s/%s/%s", h.format, h.name, c.name), func(t *testing.T) {
				r, size := c.make(h)
				out := readHostile(r, h.name)
				t.Logf("%d entries, notes %v, error %v; %v CPU, %v wall, peak heap %.1f MB, %.1f MB allocated",
					out.entries, out.notes, out.err, out.cpu.Round(time.Millisecond), out.wall.Round(time.Millisecond),
					float64(out.peak)/1e6, float64(out.alloc)/1e6)
				if out.cpu > worst.cpu {
					worst.cpu, worst.cpuAt = out.cpu, t.Name()
				}
				worst.wall = max(worst.wall, out.wall)
				if out.peak > worst.peak {
					worst.peak, worst.peakAt = out.peak, t.Name()
				}
				if out.alloc > worst.alloc {
					worst.alloc, worst.allocAt = out.alloc, t.Name()
				}
				if took := min(out.cpu, out.wall); took > hostileTime() {
					t.Errorf("took %v (%v of CPU, %v of wall time), more than %v", took, out.cpu, out.wall, hostileTime())
				}
				if limit := hostileMem(size); out.peak > limit {
					t.Errorf("peak heap %d MB, more than %d MB", out.peak>>20, limit>>20)
				}
				switch {
				case c.valid && out.err != nil:
					t.Errorf("valid input: %v", out.err)
				case c.valid:
				case out.err == nil && len(out.notes) == 0:
					t.Errorf("read %d entries with no error and no note", out.entries)
				case out.err != nil && !strings.Contains(out.err.Error(), "read "+h.name+": "):
					t.Errorf("error %q does not name the file", out.err)
				}
				if c.check != nil {
					if err := c.check(h, out); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
	t.Logf("worst: %v CPU (%s), %v wall; peak heap %.1f MB (%s); %.1f MB allocated (%s)",
		worst.cpu.Round(time.Millisecond), worst.cpuAt, worst.wall.Round(time.Millisecond),
		float64(worst.peak)/1e6, worst.peakAt, float64(worst.alloc)/1e6, worst.allocAt)
}
