package hookwire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/hookwire/socktest"
)

func testDir(t *testing.T) Dir {
	t.Helper()
	d, err := os.MkdirTemp("", "vhw") // socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir, err := RuntimeDir(func(k string) (string, bool) { return d + "/run", k == "VIGIL_RUNTIME_DIR" })
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

var key = Key{Agent: AgentClaudeCode, Session: "s1"}

// serve answers on the session's socket with Go's HTTP server, as the
// sidecar does, until the test ends.
func serve(t *testing.T, dir Dir, h http.HandlerFunc) { socktest.Serve(t, dir.Socket(key), h) }

// serveRaw answers every connection on the session's socket with reply.
func serveRaw(t *testing.T, dir Dir, reply string) { socktest.ServeRaw(t, dir.Socket(key), reply) }

func stop() Input {
	p := "/t/s1.jsonl"
	return Input{SessionID: "s1", HookEventName: EventStop, TranscriptPath: &p, Cwd: "/w"}
}

// TestTheExchange: what the hook reads of every shape of answer Go's
// HTTP server gives, and of a few it never gives.
func TestTheExchange(t *testing.T) {
	big := `{"reason":"` + strings.Repeat("x", 100<<10) + `"}`
	cases := []struct {
		name    string
		handler http.HandlerFunc
		raw     string
		want    string
		err     string
		problem string
	}{
		{name: "small reply", handler: func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"decision":"block"}`)) }, want: `{"decision":"block"}`},
		{name: "chunked reply", handler: func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte(big[:50<<10]))
			w.(http.Flusher).Flush()
			w.Write([]byte(big[50<<10:]))
		}, want: big},
		{name: "nothing to say", handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }},
		{name: "problem", handler: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set(ProblemHeader, "follow /t: not a regular file")
			w.WriteHeader(http.StatusNoContent)
		}, problem: "follow /t: not a regular file"},
		{name: "error status", handler: func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "wrong session", http.StatusConflict) }, err: "sidecar answered 409 Conflict: wrong session"},
		{name: "not JSON", handler: func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello")) }, err: "not a JSON object"},
		{name: "too large", handler: func(w http.ResponseWriter, _ *http.Request) { w.Write(bytes.Repeat([]byte("{"), maxReply+1)) }, err: "larger than"},
		{name: "ended by the close", raw: "HTTP/1.0 200 OK\r\n\r\n{\"a\":1}", want: `{"a":1}`},
		{name: "cut short", raw: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", err: "unexpected EOF"},
		{name: "not HTTP", raw: "SSH-2.0-OpenSSH\r\n", err: "not an HTTP answer"},
		{name: "endless header", raw: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("y", 8<<10) + "\r\n\r\n{}", err: "header too long"},
		{name: "bad chunk", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: "bad chunk size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testDir(t)
			if c.raw != "" {
				serveRaw(t, dir, c.raw)
			} else {
				serve(t, dir, c.handler)
			}
			out, problem, err := post(context.Background(), dir.Socket(key), []byte(`{}`), time.Second)
			if string(out) != c.want || problem != c.problem {
				t.Errorf("reply %.100q problem %q; want %.100q, %q", out, problem, c.want, c.problem)
			}
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("err = %v, want %q", err, c.err)
			}
		})
	}
}

// TestWhatTheSidecarGets: the request is one the sidecar's server
// reads: the fields vigil reads, the deadline, and no more.
func TestWhatTheSidecarGets(t *testing.T) {
	dir := testDir(t)
	got := make(chan *http.Request, 1)
	var body []byte
	serve(t, dir, func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		got <- r
		w.Write([]byte(`{}`))
	})
	msg := "Done."
	in := stop()
	in.LastAssistantMessage = &msg
	out, err := Forward(context.Background(), dir, AgentClaudeCode, in, nil, 7*time.Second)
	if err != nil || string(out) != "{}" {
		t.Fatalf("out %q, err %v", out, err)
	}
	r := <-got
	want := `{"session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/w","hook_event_name":"Stop","last_assistant_message":"Done."}`
	if r.Method != "POST" || r.URL.Path != "/hook" || r.Header.Get(DeadlineHeader) != "7000" || r.Header.Get("Content-Type") != "application/json" || string(body) != want {
		t.Fatalf("%s %s deadline %q type %q body %s", r.Method, r.URL.Path, r.Header.Get(DeadlineHeader), r.Header.Get("Content-Type"), body)
	}
}

// TestAStuckSidecarCostsTheWait: a sidecar that never answers is given
// up on after the wait, with an error that says so.
func TestAStuckSidecarCostsTheWait(t *testing.T) {
	dir := testDir(t)
	serve(t, dir, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	start := time.Now()
	_, err := Forward(context.Background(), dir, AgentClaudeCode, stop(), nil, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not answer in time: context deadline exceeded") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("gave up after %v", took)
	}
}

// TestNoSidecar: nothing listens (no socket, or a stale one); with a
// spawner, it is started and asked again.
func TestNoSidecar(t *testing.T) {
	dir := testDir(t)
	if _, err := Forward(context.Background(), dir, AgentClaudeCode, stop(), nil, time.Second); !errors.Is(err, ErrNoSidecar) {
		t.Fatalf("no socket: %v", err)
	}
	ln, err := net.Listen("unix", dir.Socket(key))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // a stale socket: connecting is refused
	if _, err := Forward(context.Background(), dir, AgentClaudeCode, stop(), nil, time.Second); !errors.Is(err, ErrNoSidecar) {
		t.Fatalf("stale socket: %v", err)
	}
	var started []Input
	spawn := func(_ context.Context, k Key, in Input) error {
		started = append(started, in)
		os.Remove(dir.Socket(k))
		serve(t, dir, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"ok":1}`)) })
		return nil
	}
	out, err := Forward(context.Background(), dir, AgentClaudeCode, stop(), spawn, time.Second)
	if err != nil || string(out) != `{"ok":1}` || len(started) != 1 {
		t.Fatalf("out %q err %v started %d", out, err, len(started))
	}
}

// TestTheSidecarsPromiseBoundsTheWait: the registry file's waits_ms
// shrinks the wait, and the sidecar is told the shorter one.
func TestTheSidecarsPromiseBoundsTheWait(t *testing.T) {
	dir := testDir(t)
	if err := os.WriteFile(dir.Info(key), []byte(`{"pid":1,"waits_ms":{"Stop":50,"PostToolUse":0}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if d, ok := dir.Wait(key, EventStop); !ok || d != 50*time.Millisecond {
		t.Fatalf("Wait(Stop) = %v, %v", d, ok)
	}
	if _, ok := dir.Wait(key, EventPostToolUse); ok {
		t.Fatal("a wait of 0 is a promise")
	}
	told := make(chan string, 1)
	serve(t, dir, func(w http.ResponseWriter, r *http.Request) {
		told <- r.Header.Get(DeadlineHeader)
		<-r.Context().Done()
	})
	if _, err := Forward(context.Background(), dir, AgentClaudeCode, stop(), nil, time.Hour); err == nil {
		t.Fatal("no give-up")
	}
	if d := <-told; d != "50" {
		t.Fatalf("told %q ms, want 50", d)
	}
}

// TestListening: the loopback probe hookd is found by.
func TestListening(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if !listening(addr, time.Second) {
		t.Fatalf("nothing found on %s", addr)
	}
	ln.Close()
	if listening(addr, time.Second) {
		t.Fatalf("something found on %s after it closed", addr)
	}
	if listening("localhost:1", time.Second) {
		t.Fatal("a name is not an address")
	}
}

func TestSidecarArgs(t *testing.T) {
	in := stop()
	in.HookEventName, in.Source = EventSessionStart, "resume"
	got := strings.Join(SidecarArgs(AgentCodex, in, "/w", Proc{PID: 42, Start: 7}), " ")
	if want := "sidecar codex --session s1 --transcript /t/s1.jsonl --cwd /w --start resume --agent-pid 42 --agent-start 7"; got != want {
		t.Fatalf("%s\nwant %s", got, want)
	}
	if got := strings.Join(SidecarArgs(AgentCodex, stop(), "/w", Proc{}), " "); strings.Contains(got, "agent-pid") || !strings.HasSuffix(got, "--start Stop") {
		t.Fatal(got)
	}
}

// TestHookdConfig: hookd.json is read, and refused without a secret.
func TestHookdConfig(t *testing.T) {
	d := t.TempDir()
	if _, ok, err := LoadHookd(d); ok || err != nil {
		t.Fatalf("none: %v %v", ok, err)
	}
	os.WriteFile(HookdFile(d), []byte(`{"addr":"127.0.0.1:9","secret":"short"}`), 0o600)
	if _, ok, err := LoadHookd(d); ok || err == nil || !strings.Contains(err.Error(), filepath.Join(d, "hookd.json")) {
		t.Fatalf("short secret: %v %v", ok, err)
	}
	os.WriteFile(HookdFile(d), []byte(`{"addr":"127.0.0.1:9","secret":"`+strings.Repeat("a", 32)+`"}`), 0o600)
	c, ok, err := LoadHookd(d)
	if !ok || err != nil || c.URL("claude-code") != "http://127.0.0.1:9/hook/"+strings.Repeat("a", 32)+"/claude-code" {
		t.Fatalf("%+v %v %v", c, ok, err)
	}
}
