package hook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/hookwire/socktest"

	"github.com/vigil-dev/vigil/internal/sidecar"
)

func testDir(t *testing.T) sidecar.Dir {
	t.Helper()
	d, err := os.MkdirTemp("", "vhk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir, err := sidecar.RuntimeDir(func(k string) (string, bool) { return d + "/run", k == "VIGIL_RUNTIME_DIR" })
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// serve answers on the session's socket with h until the test ends.
func serve(t *testing.T, dir sidecar.Dir, session string, h http.HandlerFunc) {
	t.Helper()
	socktest.Serve(t, dir.Socket(sidecar.Key{Agent: sidecar.AgentClaudeCode, Session: session}), h)
}

const stopEvent = `{"session_id":"s1","hook_event_name":"Stop","transcript_path":"/t/s1.jsonl","cwd":"/w","stop_hook_active":false}`

func run(dir sidecar.Dir, stdin string, spawn Spawner, timeout time.Duration) (string, error) {
	var out bytes.Buffer
	err := Run(context.Background(), Options{
		Agent: sidecar.AgentClaudeCode, Stdin: strings.NewReader(stdin), Stdout: &out, Dir: dir, Spawn: spawn,
		Timeout: func(string) time.Duration { return timeout },
	})
	return out.String(), err
}

func TestForwardsTheReply(t *testing.T) {
	dir := testDir(t)
	var got []byte
	var deadline string
	serve(t, dir, "s1", func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		deadline = r.Header.Get(sidecar.DeadlineHeader)
		w.Write([]byte(`{"decision":"block","reason":"<advisory>x</advisory>"}`))
	})
	event := strings.TrimSuffix(stopEvent, "}") + `,"last_assistant_message":"Done.","tool_response":"` + strings.Repeat("x", 1<<20) + `"}`
	out, err := run(dir, event, nil, 7*time.Second)
	if err != nil || out != `{"decision":"block","reason":"<advisory>x</advisory>"}` {
		t.Fatalf("out %q, err %v", out, err)
	}
	// The fields vigil reads go, and not the megabyte it would skip.
	want := `{"session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/w","hook_event_name":"Stop","last_assistant_message":"Done."}`
	if string(got) != want || deadline != "7000" {
		t.Fatalf("the sidecar got %.200q with deadline %q; want %s", got, deadline, want)
	}
}

func TestFailsOpen(t *testing.T) {
	cases := []struct {
		name    string
		stdin   string
		handler http.HandlerFunc
		want    string
	}{
		{"nothing to say", stopEvent, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }, ""},
		{"broken sidecar", stopEvent, func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", 500) }, "500"},
		{"not a JSON object", stopEvent, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello")) }, "not a JSON object"},
		{"slow sidecar", stopEvent, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, "deadline"},
		{"malformed event", `{"session_id":`, nil, "hook event"},
		{"no session id", `{"hook_event_name":"Stop"}`, nil, "no session_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testDir(t)
			if c.handler != nil {
				serve(t, dir, "s1", c.handler)
			}
			out, err := run(dir, c.stdin, nil, 100*time.Millisecond)
			if out != "" {
				t.Fatalf("printed %q; a hook that fails open prints nothing", out)
			}
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestStartsTheSidecarWhenAbsent(t *testing.T) {
	dir := testDir(t)
	var spawned []string
	spawn := func(_ context.Context, key sidecar.Key, in sidecar.Input) error {
		spawned = append(spawned, in.HookEventName+" "+key.Session)
		serve(t, dir, key.Session, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) })
		return nil
	}
	out, err := run(dir, stopEvent, spawn, time.Second)
	if err != nil || out != "{}" || len(spawned) != 1 || spawned[0] != "Stop s1" {
		t.Fatalf("out %q err %v spawned %v", out, err, spawned)
	}
	// Found the second time: no second start.
	if _, err := run(dir, stopEvent, spawn, time.Second); err != nil || len(spawned) != 1 {
		t.Fatalf("second event: err %v, spawned %v", err, spawned)
	}
}

func TestNoSidecarIsStartedToEndASession(t *testing.T) {
	dir := testDir(t)
	spawn := func(context.Context, sidecar.Key, sidecar.Input) error {
		t.Fatal("a sidecar was started for SessionEnd")
		return nil
	}
	_, err := run(dir, `{"session_id":"s1","hook_event_name":"SessionEnd"}`, spawn, time.Second)
	if !errors.Is(err, ErrNoSidecar) {
		t.Fatalf("err = %v, want ErrNoSidecar", err)
	}
}

func TestOversizeEventIsDrained(t *testing.T) {
	dir := testDir(t)
	big := io.MultiReader(strings.NewReader(`{"session_id":"s1","hook_event_name":"PostToolUse","tool_response":"`), io.LimitReader(zeros{}, sidecar.MaxEvent+10))
	var out bytes.Buffer
	err := Run(context.Background(), Options{Agent: sidecar.AgentClaudeCode, Stdin: big, Stdout: &out, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "larger than") || out.Len() != 0 {
		t.Fatalf("err %v out %q", err, out.String())
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = 'a'
	}
	return len(b), nil
}

func TestLogKeepsItsSizeBounded(t *testing.T) {
	dir := testDir(t)
	big := strings.Repeat("x", 1<<20)
	Log(dir, "codex", errors.New(big))
	Log(dir, "codex", errors.New("second"))
	b, err := os.ReadFile(dir.HookLog())
	if err != nil || !strings.Contains(string(b), "second") || len(b) > 1<<10 {
		t.Fatalf("log holds %d bytes (%v)", len(b), err)
	}
	if _, err := os.Stat(dir.HookLog() + ".old"); err != nil {
		t.Fatalf("no rotated log: %v", err)
	}
}

// TestTheSidecarsPromiseBoundsTheWait: a live sidecar's registry file
// says how long it may take per event; the hook waits no longer than
// that for a stuck one.
func TestTheSidecarsPromiseBoundsTheWait(t *testing.T) {
	dir := testDir(t)
	key := sidecar.Key{Agent: sidecar.AgentClaudeCode, Session: "s1"}
	if err := dir.WriteInfo(sidecar.Info{Key: key, PID: os.Getpid(), Waits: map[string]int64{"Stop": 50}}); err != nil {
		t.Fatal(err)
	}
	told := make(chan string, 1)
	serve(t, dir, "s1", func(w http.ResponseWriter, r *http.Request) {
		told <- r.Header.Get(sidecar.DeadlineHeader)
		<-r.Context().Done()
	})
	out, err := run(dir, stopEvent, nil, time.Hour)
	if out != "" || err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("out %q err %v; want a give-up", out, err)
	}
	if deadline := <-told; deadline != "50" {
		t.Fatalf("the sidecar was told %q ms, want 50", deadline)
	}
}

// TestTheSidecarsProblemIsLogged: a sidecar that cannot do its work (a
// transcript it cannot read) says so once in its answer; the hook prints
// the answer all the same and logs the problem.
func TestTheSidecarsProblemIsLogged(t *testing.T) {
	dir := testDir(t)
	serve(t, dir, "s1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(sidecar.ProblemHeader, "follow /t/s1.jsonl: not a regular file (a named pipe)")
		w.Write([]byte(`{"decision":"block","reason":"x"}`))
	})
	out, err := run(dir, stopEvent, nil, time.Second)
	if out != `{"decision":"block","reason":"x"}` || err == nil || !strings.Contains(err.Error(), "Stop: the sidecar says: follow /t/s1.jsonl: not a regular file (a named pipe)") {
		t.Fatalf("out %q err %v", out, err)
	}
}

// TestLogWritesOneLine: whatever the error holds (an event's path with a
// newline or a terminal escape in it), the log gets one line, escaped.
func TestLogWritesOneLine(t *testing.T) {
	dir := testDir(t)
	Log(dir, "codex", errors.New("open /t/a\nforged line \x1b]0;title\x07 \xff"))
	b, err := os.ReadFile(dir.HookLog())
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 1 || bytes.ContainsAny(b, "\x1b\x07") || !bytes.Contains(b, []byte(`a\u000aforged line \u001b]0;title\u0007 \xff`)) {
		t.Fatalf("log %q", b)
	}
}
