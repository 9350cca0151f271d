package transcript

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// sparse writes head, then n zero bytes (a hole: no disk used), then
// tail, as a file at path.
func sparse(t *testing.T, path, head string, n int64, tail string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(head); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(tail), int64(len(head))+n); err != nil {
		t.Fatal(err)
	}
	if tail == "" {
		if err := f.Truncate(int64(len(head)) + n); err != nil {
			t.Fatal(err)
		}
	}
}

// pollAll polls until the follower has read all there is, and returns
// the bytes allocated meanwhile.
func pollAll(t *testing.T, fl *Follower) (followed, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var r followed
	for {
		b := mustPoll(t, fl)
		r.add(t, b)
		if !b.More {
			break
		}
	}
	runtime.ReadMemStats(&after)
	return r, after.TotalAlloc - before.TotalAlloc
}

// TestFollowSkipsAnOverlongLine: a line past maxLine is skipped and
// noted, the lines after it read as usual, and the follower never holds
// it whole (it held the whole line before, copied at each doubling).
func TestFollowSkipsAnOverlongLine(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	sparse(t, w.path, ccfPrompt, maxLine+maxPollBytes, "\n"+ccfCall+ccfResult)
	fl := Follow(w.path, FormatClaudeCode)
	r, alloc := pollAll(t, fl)
	r.add(t, mustSettle(t, fl))
	if got := jlShapes(r.entries); got != "user: run it\nassistant: call Bash(c1)\nresult c1\n" {
		t.Errorf("entries:\n%s", got)
	}
	if n := fl.Notes(); len(n) != 1 || !strings.Contains(n[0].What, "line longer than 64 MiB") || n[0].FirstLine != 2 {
		t.Errorf("notes %+v", n)
	}
	if info, _ := os.Stat(w.path); fl.Offset() != info.Size() {
		t.Errorf("offset %d, want %d", fl.Offset(), info.Size())
	}
	if alloc > maxLine+maxLine/4 {
		t.Errorf("allocated %d MiB reading a line of %d MiB; want at most the bound once", alloc>>20, (maxLine+maxPollBytes)>>20)
	}
}

// TestFollowLineThatNeverEnds: a file of zeros with no newline (the
// regular file's /dev/zero) costs reading, not memory: the follower
// stays at the end of the last complete line.
func TestFollowLineThatNeverEnds(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	sparse(t, w.path, ccfPrompt, maxLine+maxPollBytes, "")
	fl := Follow(w.path, FormatClaudeCode)
	r, alloc := pollAll(t, fl)
	if len(r.entries) != 1 || fl.Offset() != int64(len(ccfPrompt)) {
		t.Errorf("%d entries, offset %d", len(r.entries), fl.Offset())
	}
	if alloc > maxLine+maxLine/4 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
}

// TestFollowLongLineGrowsOnce: a long line within the bound is read
// whole, its buffer grown once to what the file holds rather than at
// each doubling.
func TestFollowLongLineGrowsOnce(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	long := strings.Replace(ccfResult, `"content":"ok"`, `"content":"`+strings.Repeat("x", 16<<20)+`"`, 1)
	w.write([]byte(ccfPrompt + ccfCall + long + ccfThink))
	fl := Follow(w.path, FormatClaudeCode)
	r, alloc := pollAll(t, fl)
	if got := jlShapes(r.entries); !strings.HasPrefix(got, "user: run it\nassistant: call Bash(c1)\nresult c1") {
		t.Errorf("entries:\n%s", got)
	}
	t.Logf("allocated %d MiB reading a line of 16 MiB", alloc>>20)
	if alloc > 4*16<<20 {
		t.Errorf("allocated %d MiB reading a line of 16 MiB", alloc>>20)
	}
}
