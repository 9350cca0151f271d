package sidecar

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/transcript"
)

// logLines records a sidecar's log.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// with returns the lines holding text.
func (l *logLines) with(text string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.lines {
		if strings.Contains(s, text) {
			out = append(out, s)
		}
	}
	return out
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Lines of a Claude Code transcript: a prompt, then tool steps.
func ccLine(uuid, body string) string {
	return `{"type":` + body + `,"uuid":"` + uuid + `","sessionId":"s1","cwd":"/w","timestamp":"2026-11-30T01:00:01.000Z"}` + "\n"
}

func ccPrompt(text string) string {
	return ccLine("u-"+text, `"user","message":{"role":"user","content":"`+text+`"}`)
}

func ccStep(n int) string {
	id := fmt.Sprint(n)
	return ccLine("a"+id, `"assistant","message":{"id":"m`+id+`","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"c`+id+`","name":"Bash","input":{"command":"make"}}],"stop_reason":"tool_use"}`) +
		ccLine("r"+id, `"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c`+id+`","content":"ok"}]}`)
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// newFollowing is a sidecar following the Claude Code transcript at path
// with the real follower.
func newFollowing(t *testing.T, path string, o Options) (*Sidecar, *fakeAdvisor, *logLines) {
	t.Helper()
	a := &fakeAdvisor{}
	logs := &logLines{}
	if o.Host == nil {
		o.Host = NewHost()
	}
	o.Key = Key{Agent: AgentClaudeCode, Session: "s1"}
	o.Advisor = a
	o.Transcript = path
	o.Follow = func(p string) Follower { return transcript.Follow(p, transcript.FormatClaudeCode) }
	o.Logf = logs.logf
	return New(o), a, logs
}

// handleWithin answers in within bound, failing the test if it takes
// longer (the bound is a hang detector, far above a prompt answer).
func handleWithin(t *testing.T, sc *Sidecar, in Input, bound time.Duration) (*Output, time.Duration) {
	t.Helper()
	type res struct {
		out  *Output
		took time.Duration
	}
	done := make(chan res, 1)
	go func() {
		start := time.Now()
		out, _ := sc.Handle(context.Background(), in)
		done <- res{out, time.Since(start)}
	}()
	select {
	case r := <-done:
		return r.out, r.took
	case <-time.After(bound):
		t.Fatalf("%s: no answer within %v", in.HookEventName, bound)
		return nil, 0
	}
}

// TestNamedPipeTranscriptAnswersAtOnce is defect 4 of issue 13: a named
// pipe as the transcript stalled every hook for its whole timeout, the
// sidecar blocked in its open. Now each hook is answered at once (with
// the notes due: failing open), the refusal is logged once, and only
// the first hook is told.
func TestNamedPipeTranscriptAnswersAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "s1.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	host := NewHost()
	// Waits of an hour: an answer that came from giving up waiting would
	// not come within the bound.
	sc, _, logs := newFollowing(t, fifo, Options{Host: host, FlushWait: time.Hour, StopWait: time.Millisecond})
	srv := httptest.NewServer(sc.Handler())
	defer srv.Close()
	// A hang detector, far above a prompt answer: the old sidecar blocked
	// here for good.
	client := &http.Client{Timeout: 10 * time.Second}
	host.Aside(context.Background(), advisor.Advice{Note: "still delivered"})
	for i, ev := range []string{
		`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`,
		`{"session_id":"s1","hook_event_name":"PostToolUse","tool_use_id":"c1"}`,
		`{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"done"}`,
		`{"session_id":"s1","hook_event_name":"UserPromptSubmit"}`,
	} {
		in, err := ParseInput([]byte(ev))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		resp, err := client.Post(srv.URL+"/hook", "application/json", strings.NewReader(ev))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		t.Logf("%s answered in %v", in.HookEventName, time.Since(start))
		problem := resp.Header.Get(ProblemHeader)
		if (i == 0) != (problem != "") || i == 0 && !strings.Contains(problem, "not a regular file (a named pipe)") {
			t.Errorf("%s: problem header %q; want the refusal told to the first hook only", in.HookEventName, problem)
		}
		if in.HookEventName == EventPostToolUse && resp.StatusCode != http.StatusOK {
			t.Errorf("PostToolUse: %s; want the note that was due", resp.Status)
		}
	}
	// The bound on each answer, asserted without timing: a call that
	// blocks fails here.
	if out, _ := handleWithin(t, sc, event(EventStop, map[string]any{"transcript_path": fifo}), 10*time.Second); out != nil {
		t.Errorf("Stop answered %+v", out)
	}
	sc.Sync()
	if got := logs.with("named pipe"); len(got) != 1 {
		t.Errorf("logged %q; want the refusal once", logs.all())
	}
}

// BenchmarkNamedPipeTranscriptHook: the time a tool hook takes when the
// transcript is a named pipe (it was the hook's whole timeout).
func BenchmarkNamedPipeTranscriptHook(b *testing.B) {
	fifo := filepath.Join(b.TempDir(), "s1.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		b.Fatal(err)
	}
	sc := New(Options{Key: Key{Agent: AgentClaudeCode, Session: "s1"}, Host: NewHost(), Advisor: &fakeAdvisor{}, Transcript: fifo, FlushWait: time.Hour,
		Follow: func(p string) Follower { return transcript.Follow(p, transcript.FormatClaudeCode) }})
	in := event(EventPostToolUse, map[string]any{"transcript_path": fifo, "tool_use_id": "c1"})
	for b.Loop() {
		sc.Handle(context.Background(), in)
	}
}

// TestConditionLoggedOnce is the log half of defect 9: a condition is
// logged when it starts, again only when it changes, and its end once;
// the sidecar polls four times a second, so it used to fill its log.
func TestConditionLoggedOnce(t *testing.T) {
	logs := &logLines{}
	sc, f, _ := newTest(t, Options{Logf: logs.logf})
	denied := errors.New("follow /t/s1.jsonl: open /t/s1.jsonl: permission denied")
	other := errors.New("follow /t/s1.jsonl: read /t/s1.jsonl: input/output error")
	f.pollErrs = []error{denied, denied, denied, other, other, nil, denied}
	for range len(f.pollErrs) {
		sc.Sync()
	}
	want := []string{denied.Error(), other.Error(), "follow /t/s1.jsonl: reading again", denied.Error()}
	if got := logs.all(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("logged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if msg := sc.takeUntold(); msg != denied.Error() {
		t.Fatalf("untold %q; want the condition now", msg)
	}
	if msg := sc.takeUntold(); msg != "" {
		t.Fatalf("told twice: %q", msg)
	}
}

// TestRemovedTranscriptStops is defect 9's sidecar whose transcript was
// deleted: it logs that once, answers the hooks that come meanwhile at
// once, and stops when the file stayed away GoneWait; polling four times
// a second adds no line.
func TestRemovedTranscriptStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s1.jsonl")
		appendFile(t, path, ccPrompt("go")+ccStep(1))
		sc, _, logs := newFollowing(t, path, Options{FlushWait: time.Hour})
		if err := sc.Sync(); err != nil {
			t.Fatal(err)
		}
		os.Remove(path)
		for range 4 * 9 { // nine seconds of polls
			sc.Sync()
			time.Sleep(250 * time.Millisecond)
		}
		// A hook meanwhile has no transcript to wait for.
		if out, took := handleWithin(t, sc, event(EventPostToolUse, map[string]any{"transcript_path": path, "tool_use_id": "c9"}), time.Minute); out != nil || took != 0 {
			t.Fatalf("PostToolUse: %+v after %v; want nothing, at once", out, took)
		}
		select {
		case <-sc.Ended():
			t.Fatal("stopped before GoneWait")
		default:
		}
		time.Sleep(time.Second)
		sc.Sync()
		select {
		case <-sc.Ended():
		default:
			t.Fatalf("still running %v after the transcript was removed; log %q", DefaultGoneWait, logs.all())
		}
		if r := sc.EndReason(); !strings.Contains(r, "removed") {
			t.Errorf("end reason %q", r)
		}
		if got := logs.all(); len(got) != 2 || !strings.Contains(got[0], "it was removed: waiting 10s") || !strings.Contains(got[1], "stopping") {
			t.Errorf("logged %q; want the removal, then the stop", got)
		}
	})
}

// TestRemovedTranscriptComesBack: a transcript the agent writes again
// within GoneWait is followed from its start, the advisor reset before
// its steps, and the sidecar does not stop.
func TestRemovedTranscriptComesBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s1.jsonl")
		appendFile(t, path, ccPrompt("go")+ccStep(1)+ccPrompt("more"))
		host := NewHost()
		sc, a, logs := newFollowing(t, path, Options{Host: host})
		sc.Sync()
		os.Remove(path)
		sc.Sync()
		time.Sleep(5 * time.Second)
		appendFile(t, path, ccPrompt("again")+ccStep(2)+ccPrompt("next"))
		sc.Sync()
		time.Sleep(DefaultGoneWait)
		sc.Sync()
		select {
		case <-sc.Ended():
			t.Fatal("stopped although the transcript came back")
		default:
		}
		if got := strings.Join(a.kinds(), " "); got != "user_resumed step_ended@3 user_resumed history_rewritten user_resumed step_ended@7 user_resumed" {
			t.Errorf("events %s", got)
		}
		view, _, _ := host.View(context.Background())
		if len(view) != 4 {
			t.Errorf("view of %d entries; want the new file's 4", len(view))
		}
		if got := logs.with("writes it again"); len(got) != 1 {
			t.Errorf("logged %q", logs.all())
		}
		if st := sc.Stats(); st.Resets != 1 {
			t.Errorf("resets %d", st.Resets)
		}
	})
}

// TestReplacedTranscriptIsFollowedAnew: another file that takes the
// transcript's name is read from its start, once, with the advisor reset.
func TestReplacedTranscriptIsFollowedAnew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	appendFile(t, path, ccPrompt("go")+ccStep(1)+ccPrompt("more"))
	sc, a, logs := newFollowing(t, path, Options{})
	sc.Sync()
	appendFile(t, path+".new", ccPrompt("other")+ccStep(1)+ccPrompt("more"))
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		sc.Sync()
	}
	if got := strings.Join(a.kinds(), " "); got != "user_resumed step_ended@3 user_resumed history_rewritten user_resumed step_ended@7 user_resumed" {
		t.Errorf("events %s", got)
	}
	if got := logs.all(); len(got) != 1 || !strings.Contains(got[0], "another file took its name: following the file there from its start") {
		t.Errorf("logged %q", got)
	}
}

// TestDisabledSidecarAnswersNothing: a sidecar that could not read its
// settings answers every hook at once with nothing, tells the first
// why, and ends with the session.
func TestDisabledSidecarAnswersNothing(t *testing.T) {
	sc := New(Options{Key: Key{Agent: AgentClaudeCode, Session: "s1"}, Disabled: "cannot advise: /p/.vigil/config.yml:1:10: too deep"})
	srv := httptest.NewServer(sc.Handler())
	defer srv.Close()
	for i, ev := range []string{"SessionStart", "PostToolUse", "Stop", "SessionEnd"} {
		resp, err := http.Post(srv.URL+"/hook", "application/json", strings.NewReader(`{"session_id":"s1","hook_event_name":"`+ev+`","transcript_path":"/t/x.jsonl"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("%s: %s", ev, resp.Status)
		}
		if p := resp.Header.Get(ProblemHeader); (i == 0) != strings.Contains(p, "too deep") {
			t.Errorf("%s: problem %q", ev, p)
		}
	}
	select {
	case <-sc.Ended():
	default:
		t.Fatal("SessionEnd did not end it")
	}
	if w := sc.Waits(); w[EventStop] > answerMargin.Milliseconds() {
		t.Errorf("waits %v", w)
	}
}
