package review

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The file system's part of the hostile-input suite (transcript's suite
// has the contents): for a file named as each format's would be, a named
// pipe, a link to /dev/zero, a loop of links, a link to nothing and a
// socket are refused without being opened, at once.
func TestFileRefusesWhatIsNoRegularFile(t *testing.T) {
	names := []string{"session.jsonl", "rollout-2026-11-30.jsonl", "run.traj", "run.traj.json", "output.jsonl", "trajectory.json", ".aider.chat.history.md", "x.jsonl.gz"}
	dir := t.TempDir()
	var worst time.Duration
	for _, name := range names {
		cases := map[string]func(path string) error{
			"a named pipe":             func(p string) error { return syscall.Mkfifo(p, 0o644) },
			"a character device":       func(p string) error { return os.Symlink("/dev/zero", p) },
			"a loop of symbolic links": func(p string) error { return os.Symlink(p, p) },
			"a symbolic link to nothing": func(p string) error {
				return os.Symlink(filepath.Join(dir, "nowhere"), p)
			},
			"a folder": func(p string) error { return os.Mkdir(p, 0o755) },
		}
		for what, make := range cases {
			path := filepath.Join(dir, strings.ReplaceAll(what, " ", "-")+"-"+name)
			if err := make(path); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := File(context.Background(), path, Options{})
			took := time.Since(start)
			worst = max(worst, took)
			want := "read " + path + ": not a regular file (" + what + ")"
			if res != nil || !errors.Is(err, ErrNotRegular) || err.Error() != want {
				t.Errorf("%s: got %v, %v; want %s", path, res, err, want)
			}
			if took > time.Second {
				t.Errorf("%s: took %v", path, took)
			}
		}
	}
	t.Logf("slowest refusal: %v", worst)
}

// endless is a transcript that never ends: a vigil session header, then
// blank lines for ever.
type endless struct{ header []byte }

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.header)
	e.header = e.header[n:]
	for i := n; i < len(p); i++ {
		p[i] = '\n'
	}
	return len(p), nil
}

// A review stops at the next read once its context is done, even inside
// a stretch that yields no entry (here: blank lines without end).
func TestReadStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	header := []byte(`{"type":"session","version":1,"id":"f5d6a6217b581afc","cwd":"/w","created":"2026-11-30T01:42:28.559Z"}` + "\n")
	var read int64
	opt := Options{Progress: func(n int64) {
		read = n
		if n >= 4<<20 {
			cancel(errors.New("interrupted (SIGTERM)"))
		}
	}}
	res, err := Read(ctx, &endless{header: header}, "endless.jsonl", opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Error() != "review endless.jsonl: interrupted (SIGTERM)" {
		t.Errorf("Err = %v", res.Err)
	}
	if read > 6<<20 {
		t.Errorf("read %d MB after the cancel at 4", read>>20)
	}
}

func TestReadAdvisorTranscript(t *testing.T) {
	advisor := `{"type":"session","version":1,"id":"advisor-3f9a0c1d2e4b5a69","cwd":"/w","created":"2026-11-05T14:03:22.417Z","parentSession":{"kind":"advisor","id":"3f9a0c1d2e4b5a69","path":"/s.jsonl"}}` + "\n" +
		`{"type":"custom_message","id":"a1","parentId":null,"timestamp":"2026-11-05T14:03:23.000Z","customType":"advisor_update","content":[{"type":"text","text":"step 1"}],"display":false,"inContext":true}` + "\n"
	for _, name := range []string{"__advisor.jsonl", "renamed.jsonl"} {
		_, err := Read(context.Background(), strings.NewReader(advisor), name, Options{})
		want := "read " + name + ": an advisor transcript, not an agent session (review the session it watches, 3f9a0c1d2e4b5a69)"
		if !errors.Is(err, ErrAdvisorTranscript) || err.Error() != want || !NotTranscript(err) {
			t.Errorf("%s: got %v, want %s", name, err, want)
		}
	}
	// A session named otherwise is reviewed.
	session := strings.Replace(strings.Replace(advisor, `,"parentSession":{"kind":"advisor","id":"3f9a0c1d2e4b5a69","path":"/s.jsonl"}`, "", 1), "advisor-", "", 1)
	if _, err := Read(context.Background(), strings.NewReader(session), "session.jsonl", Options{}); err != nil {
		t.Errorf("a session: %v", err)
	}
}

// cancelAfter reads r and cancels the review's context once n bytes are
// read, as a signal arriving mid-file does.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelCauseFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	if c.n -= k; c.n <= 0 {
		c.cancel(errors.New("SIGTERM"))
	}
	return k, err
}

// TestReviewCutShortSaysSo: a review whose context ends in the middle of
// a long line (which the reader cuts and notes, ending its items without
// an error) reports why it stopped, never a clean result.
func TestReviewCutShortSaysSo(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(devset, "vigil", "clean_normal_fix.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := bytes.Cut(data, []byte("\n"))
	body := append(append(header, '\n'), bytes.Repeat([]byte{0}, 64<<20)...)
	for _, at := range []int{len(header) + 1, len(header) + 1<<20, len(header) + 40<<20} {
		ctx, cancel := context.WithCancelCause(context.Background())
		res, err := Read(ctx, &cancelAfter{r: bytes.NewReader(body), n: at, cancel: cancel}, "huge.jsonl", Options{})
		cancel(nil)
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), "SIGTERM") {
				t.Errorf("cut at %d: err %v, want the cause", at, err)
			}
		case res.Err == nil || !strings.Contains(res.Err.Error(), "SIGTERM"):
			t.Errorf("cut at %d: result error %v, want the cause", at, res.Err)
		}
	}
}
