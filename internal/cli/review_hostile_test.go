package cli_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What `vigil review` does with hostile input (issue 13): what is no
// regular file is refused before it is opened, one bad path does not
// stop the others, terminal escapes in a transcript are printed
// visibly, and a signal ends a review at once.

func TestReviewNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "f.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, errOut, code := runVigil(t, "review", fifo)
	if code != 2 || !strings.Contains(out, fifo+": error: read "+fifo+": not a regular file (a named pipe)") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	t.Logf("refused in %v", time.Since(start))
}

func TestReviewFolderSkipsWithNotes(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, devFile("vigil/clean_normal_fix.jsonl"), filepath.Join(dir, "a", "clean.jsonl"))
	// A Claude Code session whose first line (the queued prompt) is
	// longer than the 64 KiB detection used to look at.
	cc, err := os.ReadFile(filepath.Join("..", "..", "transcript", "testdata", "claude-code", "recording.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "Run echo hello, then ls /nonexistent and pwd, and tell me what happened."
	long := bytes.Replace(cc, []byte(prompt), []byte(prompt+strings.Repeat(" Really.", 20000)), 1)
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "b", "long-prompt.jsonl"), long, 0o644)
	// An advisor's transcript next to its session.
	session, _ := os.ReadFile(devFile("vigil/clean_normal_fix.jsonl"))
	header, rest, _ := bytes.Cut(session, []byte("\n"))
	advisorHeader := bytes.Replace(header, []byte(`"created"`), []byte(`"parentSession":{"kind":"advisor","id":"93c0855a","path":"/s.jsonl"},"created"`), 1)
	os.MkdirAll(filepath.Join(dir, "s"), 0o755)
	os.WriteFile(filepath.Join(dir, "s", "__advisor.jsonl"), append(append(advisorHeader, '\n'), rest...), 0o644)
	syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o644)
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.jsonl"))
	os.Symlink("loop.jsonl", filepath.Join(dir, "loop.jsonl"))
	os.WriteFile(filepath.Join(dir, "evil\x1b]0;pwned\a.txt"), []byte("hello\n"), 0o644)

	out, errOut, code := runVigil(t, "review", dir)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		filepath.Join(dir, "a", "clean.jsonl") + ": vigil, 5 steps",
		filepath.Join(dir, "b", "long-prompt.jsonl") + ": claude-code, 5 steps",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{
		"vigil: skipped " + filepath.Join(dir, "fifo.jsonl") + ": not a regular file (a named pipe)\n",
		"vigil: skipped " + filepath.Join(dir, "zero.jsonl") + ": not a regular file (a character device)\n",
		"vigil: skipped " + filepath.Join(dir, "loop.jsonl") + ": not a regular file (a loop of symbolic links)\n",
		"vigil: skipped " + filepath.Join(dir, "s", "__advisor.jsonl") + ": an advisor transcript, not an agent session (review the session it watches, 93c0855a)\n",
		"vigil: skipped " + filepath.Join(dir, `evil\x1b]0;pwned\x07.txt`) + ": not a transcript format vigil knows",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.ContainsAny(out+errOut, "\x1b\a") {
		t.Errorf("a control character reached the output:\n%q\n%q", out, errOut)
	}
	if !strings.Contains(out, "; 5 files skipped (not transcripts)") {
		t.Errorf("summary:\n%s", out)
	}
}

// A missing path is an error in its place; the other paths are reviewed,
// and the status says that something went wrong.
func TestReviewMissingPathDoesNotStopTheOthers(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	clean := devFile("vigil/clean_normal_fix.jsonl")
	offcourse := devFile("vigil/offcourse_skips_failing_test.jsonl")
	out, errOut, code := runVigil(t, "review", clean, missing, offcourse)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{clean + ": vigil, 5 steps", missing + ": error: read " + missing + ": no such file or directory", offcourse + ": vigil, 5 steps, 2 findings"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "vigil: review: 1 of 3 files could not be reviewed in full") {
		t.Errorf("stderr:\n%s", errOut)
	}
	// Only missing paths: nothing to review.
	if _, errOut, code := runVigil(t, "review", missing); code != 2 || !strings.Contains(errOut, "1 of 1 files could not be reviewed") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}

// A folder that cannot be listed is skipped with a note; the rest is
// reviewed, and the status is 2. Root can list any folder, so the case
// runs only for another user (internal/review tests the listing with a
// file system that refuses).
func TestReviewUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can list a folder of mode 000")
	}
	dir := t.TempDir()
	copyFile(t, devFile("vigil/clean_normal_fix.jsonl"), filepath.Join(dir, "ok", "clean.jsonl"))
	copyFile(t, devFile("vigil/clean_normal_fix.jsonl"), filepath.Join(dir, "locked", "clean.jsonl"))
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	out, errOut, code := runVigil(t, "review", dir)
	if code != 2 || !strings.Contains(out, filepath.Join(dir, "ok", "clean.jsonl")+": vigil, 5 steps") ||
		!strings.Contains(errOut, "vigil: skipped "+locked+": list "+locked+": permission denied") ||
		!strings.Contains(errOut, "vigil: review: 1 skipped that could not be read") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// escapedSession is a vigil session whose command and its output carry
// terminal escapes: a colour, a new window title, a screen clear, a C1
// CSI and a right-to-left override.
func escapedSession(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(devFile("vigil/offcourse_repeat_failing_tests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(data), `python3 -m unittest -q`, `python3 -m unittest -q \u001b]0;pwned\u0007\u001b[31m`)
	s = strings.ReplaceAll(s, `FAILED (failures=1)`, `FAILED (failures=1)\u001b[2J\u009b\u202e`)
	path := filepath.Join(t.TempDir(), "escapes.jsonl")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReviewEscapesTerminalControls(t *testing.T) {
	path := escapedSession(t)
	for _, color := range []string{"never", "always"} {
		out, errOut, code := runVigil(t, "review", "--color", color, path)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{`python3 -m unittest -q \x1b]0;pwned\x07\x1b[31m`, `FAILED (failures=1)\x1b[2J\u009b\u202e`} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), want) { // the report's wraps undone
				t.Errorf("--color %s: output lacks %q:\n%s", color, want, out)
			}
		}
		// What is left once vigil's own colours are taken out holds no
		// control character.
		plain := out
		for _, code := range []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m"} {
			plain = strings.ReplaceAll(plain, code, "")
		}
		if strings.ContainsAny(plain, "\x1b\a\u009b\u202e") {
			t.Errorf("--color %s: a control character reached the report:\n%q", color, out)
		}
	}
	// JSON escapes them all.
	out, _, _ := runVigil(t, "review", "--json", path)
	if strings.ContainsAny(out, "\x1b\a\u009b\u202e") || !strings.Contains(out, `\u001b]0;pwned\u0007`) || !strings.Contains(out, `\u009b\u202e`) {
		t.Errorf("JSON:\n%q", out)
	}
}

// SIGTERM ends a review in the middle of a huge file at once, with the
// status a shell expects of a process ended by it (143).
func TestReviewStopsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	first := devFile("vigil/clean_normal_fix.jsonl")
	// 20 GB: a session header, then a hole that reads as NUL bytes.
	huge := filepath.Join(dir, "huge.jsonl")
	session, _ := os.ReadFile(first)
	header, _, _ := bytes.Cut(session, []byte("\n"))
	if err := os.WriteFile(huge, append(header, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 20<<30); err != nil {
		t.Fatal(err)
	}
	cmd := vigilCommand(filepath.Join(dir, "agent"), dir, "review", first, huge)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Reading all 20 GB would take minutes; a review that ignores the
	// signal fails the test instead of hanging it.
	defer time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }).Stop()
	// The first file's report is out: the huge one is being read.
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), first+": vigil") {
		t.Fatalf("first line %q", lines.Text())
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for lines.Scan() {
		rest.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	took := time.Since(sent)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Fatalf("wait: %v (after %v)\nstderr:\n%s", err, took, errOut.String())
	}
	// The signal comes while the huge file is opened or read; either way
	// its review says why it stopped.
	if !strings.Contains(rest.String(), "error: review "+huge+": interrupted (SIGTERM)") {
		t.Errorf("stdout after the signal:\n%s", rest.String())
	}
	if took > 2*time.Second {
		t.Errorf("stopped %v after SIGTERM", took)
	}
	t.Logf("stopped %v after SIGTERM", took)
}
