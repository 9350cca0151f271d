package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longPrompt returns the Claude Code recording with its first line (the
// queued prompt) padded to more than n bytes, as a long `claude -p`
// prompt makes it.
func longPrompt(t *testing.T, n int) []byte {
	t.Helper()
	data := jlTestdata(t, "claude-code/recording.jsonl")
	const prompt = "Run echo hello, then ls /nonexistent and pwd, and tell me what happened."
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	long := bytes.Replace(first, []byte(prompt), []byte(prompt+strings.Repeat(" and again", n/10)), 1)
	if len(long) <= n {
		t.Fatalf("first line %d bytes, want more than %d", len(long), n)
	}
	return append(append(long, '\n'), rest...)
}

func TestDetectLongFirstLine(t *testing.T) {
	plain := jlRead(t, jlTestdata(t, "claude-code/recording.jsonl"), "e263d154.jsonl", FormatClaudeCode)
	for _, size := range []int{sniffSize, 4 * sniffSize, 3 << 20} {
		for _, gz := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d bytes, gzip %v", size, gz), func(t *testing.T) {
				data := longPrompt(t, size)
				if gz {
					data = gzipOf(data)
				}
				res := jlRead(t, data, "e263d154.jsonl", FormatClaudeCode)
				if res.err != nil {
					t.Fatal(res.err)
				}
				if got, want := jlShapes(res.all()), jlShapes(plain.all()); got != want {
					t.Errorf("entries differ from the recording's:\n%s\nwant\n%s", got, want)
				}
				if len(res.notes) != len(plain.notes) {
					t.Errorf("notes %v, want %v", res.notes, plain.notes)
				}
			})
		}
	}
	// A file that is one long line with no newline.
	first, _, _ := bytes.Cut(longPrompt(t, 2*sniffSize), []byte("\n"))
	rd, err := NewReader(bytes.NewReader(first), "one.jsonl")
	if err != nil || rd.Format() != FormatClaudeCode {
		t.Fatalf("one long line: %v", err)
	}
}

func TestDetectFirstLineTooLong(t *testing.T) {
	data := longPrompt(t, maxLine+1)
	_, err := NewReader(bytes.NewReader(data), "huge.jsonl")
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "read huge.jsonl: the first line is longer than 64 MiB") {
		t.Errorf("got %v", err)
	}
}

func TestDetectUnknown(t *testing.T) {
	for name, data := range map[string]string{
		"empty":  "",
		"text":   "hello\n",
		"object": `{"a":1}` + "\n",
		"long":   `{"a":"` + strings.Repeat("x", 2*sniffSize) + `"}`,
	} {
		_, err := NewReader(strings.NewReader(data), name)
		if !errors.Is(err, ErrUnknownFormat) || !strings.HasPrefix(err.Error(), "read "+name+": not a transcript format vigil knows (vigil, ") {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func TestGzipInflationGuard(t *testing.T) {
	// The dev set's compressed recordings read in full.
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "devset", "*", "*.jsonl.gz"))
	if len(files) == 0 {
		t.Fatal("no compressed runs in the dev set")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(bytes.NewReader(data), filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		if res := jlDrain(rd); res.err != nil {
			t.Errorf("%s: %v", f, res.err)
		}
	}
	// So does a session that repeats one conversation with
	// fresh ids, 10 MB (it compresses about 40 times).
	long := benchJSONL(t, "vigil/recording.jsonl", 1, 10<<20)
	rd, err := NewReader(bytes.NewReader(gzipOf(long)), "long.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	if res := jlDrain(rd); res.err != nil || len(res.all()) < 10000 {
		t.Errorf("10 MB session: %d entries, %v", len(res.all()), res.err)
	}
	session := jlTestdata(t, "vigil/recording.jsonl")
	header, _, _ := bytes.Cut(session, []byte("\n"))
	// A bomb does not.
	bomb := append(gzipOf(append(header, '\n')), gzipBomb('\n', 64)...)
	rd, err = NewReader(bytes.NewReader(bomb), "bomb.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	res := jlDrain(rd)
	if res.err == nil || !strings.Contains(res.err.Error(), "refused as a decompression bomb") {
		t.Errorf("bomb: %v", res.err)
	}
}

func TestAdvisorOf(t *testing.T) {
	session := jlTestdata(t, "vigil/recording.jsonl")
	_, entries, _ := bytes.Cut(session, []byte("\n"))
	advisorHeader := `{"type":"session","version":1,"id":"advisor-f5d6a6217b581afc","cwd":"/tmp/rec/vigil/work","created":"2026-11-30T01:42:28.559Z","parentSession":{"kind":"advisor","id":"f5d6a6217b581afc","path":"/x.jsonl"}}`
	forkHeader := strings.Replace(advisorHeader, `"kind":"advisor"`, `"kind":"fork"`, 1)
	for _, c := range []struct {
		name, header string
		watched      string
		ok           bool
	}{
		{"session.jsonl", advisorHeader, "f5d6a6217b581afc", true},
		{"__advisor.jsonl", advisorHeader, "f5d6a6217b581afc", true},
		{"renamed.jsonl.gz", advisorHeader, "f5d6a6217b581afc", true},
		{"__advisor.jsonl", string(bytes.SplitN(session, []byte("\n"), 2)[0]), "f5d6a6217b581afc", true},
		{"fork.jsonl", forkHeader, "", false},
		{"session.jsonl", string(bytes.SplitN(session, []byte("\n"), 2)[0]), "", false},
	} {
		data := append([]byte(c.header+"\n"), entries...)
		rd, err := NewReader(bytes.NewReader(data), c.name)
		if err != nil {
			t.Fatal(err)
		}
		if watched, ok := rd.AdvisorOf(); watched != c.watched || ok != c.ok {
			t.Errorf("%s with %.60s…: AdvisorOf() = %q, %v; want %q, %v", c.name, c.header, watched, ok, c.watched, c.ok)
		}
	}
	// Another format named like one is not.
	rd, err := NewReader(bytes.NewReader(jlTestdata(t, "pi/recording.jsonl")), "__advisor.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rd.AdvisorOf(); ok {
		t.Error("a pi session named __advisor.jsonl is an advisor transcript")
	}
}
