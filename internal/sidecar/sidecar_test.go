package sidecar

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// fakeFollower hands out the batches a test queues.
type fakeFollower struct {
	mu       sync.Mutex
	polls    []transcript.Batch
	pollErrs []error // returned with the polls, in order; nil past the end
	settles  []transcript.Batch
	settled  int
	path     string
	pollCall int
	held     string // the call id Holds reports
	// onRelease is what Release returns.
	onRelease transcript.Batch
	released  []string
}

func (f *fakeFollower) Poll() (transcript.Batch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pollCall++
	var err error
	if len(f.pollErrs) > 0 {
		err, f.pollErrs = f.pollErrs[0], f.pollErrs[1:]
	}
	if len(f.polls) == 0 {
		return transcript.Batch{}, err
	}
	b := f.polls[0]
	f.polls = f.polls[1:]
	return b, err
}

func (f *fakeFollower) Holds(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held == id
}

func (f *fakeFollower) Release(id string) (transcript.Batch, error) {
	f.mu.Lock()
	f.released = append(f.released, id)
	b := f.onRelease
	f.held, f.onRelease = "", transcript.Batch{}
	f.mu.Unlock()
	return b, nil
}

func (f *fakeFollower) Settle() (transcript.Batch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settled++
	if len(f.settles) == 0 {
		return transcript.Batch{}, nil
	}
	b := f.settles[0]
	f.settles = f.settles[1:]
	return b, nil
}

// fakeAdvisor records what it is told; react, when set, runs on each
// event (with the host, to deliver notes as the runtime would), and
// onWait on each wait.
type fakeAdvisor struct {
	mu     sync.Mutex
	events []advisor.Event
	waits  []int
	react  func(advisor.Event)
	onWait func(ctx context.Context) error
}

func (a *fakeAdvisor) Notify(ev advisor.Event) {
	a.mu.Lock()
	a.events = append(a.events, ev)
	react := a.react
	a.mu.Unlock()
	if react != nil {
		react(ev)
	}
}

func (a *fakeAdvisor) WaitBacklogBelow(ctx context.Context, n int) error {
	a.mu.Lock()
	a.waits = append(a.waits, n)
	w := a.onWait
	a.mu.Unlock()
	if w != nil {
		return w(ctx)
	}
	return nil
}

func (a *fakeAdvisor) kinds() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, e := range a.events {
		s := string(e.Kind)
		if e.Kind == advisor.EventStepEnded {
			s += "@" + itoa(e.Cursor)
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func reply(id, text string, calls ...string) session.Entry {
	m := llm.Message{Role: llm.RoleAssistant}
	if text != "" {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockText, Text: text})
	}
	for _, c := range calls {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockToolCall, ID: c, Name: "Bash", Arguments: json.RawMessage(`{"command":"make"}`)})
	}
	return session.Entry{ID: id, Body: &session.Message{Message: m}}
}

func result(id, call string) session.Entry {
	return session.Entry{ID: id, Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: call, Text: "exit 2", IsError: true}}}}}
}

// stepBatch is a batch with one tool step: reply, result.
func stepBatch(n int, first string) transcript.Batch {
	r, res := reply("r"+itoa(n), "", "c"+itoa(n)), result("t"+itoa(n), "c"+itoa(n))
	var es []session.Entry
	if first != "" {
		es = append(es, userEntry("u", first))
	}
	es = append(es, r, res)
	return transcript.Batch{Entries: es, Steps: []transcript.Step{{N: n, Reply: r, Results: []session.Entry{res}}}}
}

func newTest(t *testing.T, o Options) (*Sidecar, *fakeFollower, *fakeAdvisor) {
	t.Helper()
	f := &fakeFollower{}
	a := &fakeAdvisor{}
	if o.Host == nil {
		o.Host = NewHost()
	}
	o.Key = Key{Agent: AgentClaudeCode, Session: "s1"}
	o.Advisor = a
	o.Transcript = "/t/s1.jsonl"
	o.Follow = func(p string) Follower { f.path = p; return f }
	return New(o), f, a
}

func event(name string, extra map[string]any) Input {
	m := map[string]any{"session_id": "s1", "hook_event_name": name, "transcript_path": "/t/s1.jsonl", "cwd": "/w"}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	in, err := ParseInput(b)
	if err != nil {
		panic(err)
	}
	return in
}

func TestToolBoundaryReportsStepsAndDeliversNotes(t *testing.T) {
	ctx := context.Background()
	host := NewHost()
	sc, f, a := newTest(t, Options{Host: host, SyncBacklog: 1, SyncTimeout: 1e9})
	// The advisor raises a concern when it hears of step 2's end.
	a.react = func(ev advisor.Event) {
		if ev.Kind == advisor.EventStepEnded && ev.Cursor == 5 {
			host.Steer(ctx, advisor.Advice{Note: "make fails the same way twice; read the error", Severity: advisor.SeverityConcern})
		}
	}
	f.polls = append(f.polls, stepBatch(1, "fix the build"))
	out, err := sc.Handle(ctx, event(EventPostToolUseFailure, nil))
	if err != nil || out != nil {
		t.Fatalf("first boundary: %+v, %v; want nothing to say", out, err)
	}
	f.polls = append(f.polls, stepBatch(2, ""))
	out, err = sc.Handle(ctx, event(EventPostToolUseFailure, nil))
	if err != nil || out == nil || out.Specific == nil {
		t.Fatalf("second boundary: %+v, %v; want the concern", out, err)
	}
	if out.Specific.HookEventName != EventPostToolUseFailure || !strings.Contains(out.Specific.AdditionalContext, `<advisory severity="concern"`) {
		t.Fatalf("reply = %+v", out.Specific)
	}
	if got, want := strings.Join(a.kinds(), " "), "step_ended@3 step_ended@5"; got != want {
		t.Fatalf("events = %s, want %s", got, want)
	}
	if len(a.waits) != 2 || a.waits[0] != 1 {
		t.Fatalf("waits = %v, want one per boundary below 1", a.waits)
	}
	if st := sc.Stats(); st.Steps != 2 || st.Delivered != 1 || st.Hooks != 2 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestStopBlocksOnceWithAnInterruptingNote(t *testing.T) {
	ctx := context.Background()
	host := NewHost()
	sc, f, a := newTest(t, Options{Host: host})
	final := reply("r9", "All tests pass.")
	f.settles = append(f.settles, transcript.Batch{Entries: []session.Entry{final}, Steps: []transcript.Step{{N: 1, Reply: final}}})
	// The review of the last step, done while Stop waits, steers.
	a.onWait = func(context.Context) error {
		host.Steer(ctx, advisor.Advice{Note: "the last test run failed", Severity: advisor.SeverityConcern})
		host.Resume(ctx)
		return nil
	}
	last := "All tests pass."
	out, err := sc.Handle(ctx, event(EventStop, map[string]any{"stop_hook_active": false, "last_assistant_message": last}))
	if err != nil || out == nil || out.Decision != "block" || !strings.Contains(out.Reason, "the last test run failed") {
		t.Fatalf("Stop = %+v, %v; want a block with the note", out, err)
	}
	if f.settled != 1 {
		t.Fatalf("Settle called %d times, want 1", f.settled)
	}
	if got := strings.Join(a.kinds(), " "); got != "step_ended@1 run_ended" {
		t.Fatalf("events = %s", got)
	}
	// The continuation ends with stop_hook_active: never block again,
	// nor wait; a note that is due stays for the next prompt.
	a.onWait = nil
	host.Steer(ctx, advisor.Advice{Note: "another", Severity: advisor.SeverityConcern})
	out, err = sc.Handle(ctx, event(EventStop, map[string]any{"stop_hook_active": true}))
	if err != nil || out != nil {
		t.Fatalf("second Stop = %+v, %v; want no block", out, err)
	}
	if len(a.waits) != 1 {
		t.Fatalf("waits = %v; the second Stop must not wait", a.waits)
	}
	if s, _, _ := host.Pending(); s != 1 {
		t.Fatalf("the note due at the second Stop was lost: %d pending", s)
	}
}

func TestStopNeverBlocksAfterTheUserInterrupted(t *testing.T) {
	ctx := context.Background()
	host := NewHost()
	sc, f, a := newTest(t, Options{Host: host})
	stop := userEntry("i", "[Request interrupted by user]")
	f.polls = append(f.polls, transcript.Batch{Entries: []session.Entry{stop}, Marks: []transcript.Mark{{Kind: transcript.MarkInterrupt, Entry: 0}}})
	host.Steer(ctx, advisor.Advice{Note: "wrong file", Severity: advisor.SeverityBlocker})
	out, _ := sc.Handle(ctx, event(EventStop, nil))
	if out != nil {
		t.Fatalf("Stop after an interrupt = %+v; want no block", out)
	}
	if got := strings.Join(a.kinds(), " "); got != "user_interrupted run_ended" {
		t.Fatalf("events = %s", got)
	}
	// The user's next prompt clears the latch and brings the note.
	out, _ = sc.Handle(ctx, event(EventUserPromptSubmit, map[string]any{"prompt": "go on"}))
	if out == nil || out.Specific == nil || !strings.Contains(out.Specific.AdditionalContext, "wrong file") || out.Specific.HookEventName != EventUserPromptSubmit {
		t.Fatalf("UserPromptSubmit = %+v", out)
	}
	if got := a.kinds(); got[len(got)-1] != "user_resumed" {
		t.Fatalf("events = %v; want user_resumed last", got)
	}
}

func TestInterruptedToolCallSetsTheLatch(t *testing.T) {
	ctx := context.Background()
	host := NewHost()
	sc, _, a := newTest(t, Options{Host: host})
	host.Steer(ctx, advisor.Advice{Note: "n", Severity: advisor.SeverityConcern})
	out, _ := sc.Handle(ctx, event(EventPostToolUseFailure, map[string]any{"is_interrupt": true}))
	if out != nil {
		t.Fatalf("reply to an interrupted call = %+v", out)
	}
	if out, _ := sc.Handle(ctx, event(EventStop, nil)); out != nil {
		t.Fatalf("Stop after an interrupted call blocked: %+v", out)
	}
	if got := a.kinds(); got[0] != "user_interrupted" {
		t.Fatalf("events = %v", got)
	}
}

func TestResetsAndMoves(t *testing.T) {
	ctx := context.Background()
	sc, f, a := newTest(t, Options{})
	sc.Handle(ctx, event(EventSessionStart, map[string]any{"source": "startup"}))
	sc.Handle(ctx, event(EventSessionStart, map[string]any{"source": "compact"}))
	c := session.Entry{ID: "c", Body: &session.Compaction{Summary: "s"}}
	f.polls = append(f.polls, transcript.Batch{Entries: []session.Entry{c}, Marks: []transcript.Mark{{Kind: transcript.MarkCompaction}}})
	sc.Handle(ctx, event(EventPreCompact, nil))
	moved := event(EventUserPromptSubmit, map[string]any{"transcript_path": "/t/other.jsonl"})
	sc.Handle(ctx, moved)
	if f.path != "/t/other.jsonl" {
		t.Fatalf("follower not moved: %s", f.path)
	}
	want := "history_rewritten history_rewritten history_rewritten user_resumed"
	if got := strings.Join(a.kinds(), " "); got != want {
		t.Fatalf("events = %s, want %s", got, want)
	}
	if st := sc.Stats(); st.Resets != 3 {
		t.Fatalf("resets = %d, want 3", st.Resets)
	}
}

func TestSubagentHooksGetNothing(t *testing.T) {
	ctx := context.Background()
	host := NewHost()
	sc, _, _ := newTest(t, Options{Host: host})
	host.Aside(ctx, advisor.Advice{Note: "for the main agent"})
	out, _ := sc.Handle(ctx, event(EventPostToolUse, map[string]any{"agent_id": "a1", "agent_type": "Explore"}))
	if out != nil {
		t.Fatalf("a subagent's hook got %+v", out)
	}
	if _, n, _ := host.Pending(); n != 1 {
		t.Fatal("the main agent's note was taken by a subagent")
	}
}

func TestSessionEndEnds(t *testing.T) {
	sc, _, _ := newTest(t, Options{})
	sc.Handle(context.Background(), event(EventSessionEnd, map[string]any{"reason": "prompt_input_exit"}))
	select {
	case <-sc.Ended():
	default:
		t.Fatal("not ended")
	}
	if r := sc.EndReason(); !strings.Contains(r, "prompt_input_exit") {
		t.Fatalf("reason = %q", r)
	}
}

func TestHandlerStatusCodes(t *testing.T) {
	host := NewHost()
	sc, _, _ := newTest(t, Options{Host: host})
	srv := httptest.NewServer(sc.Handler())
	defer srv.Close()
	post := func(body string) (int, string) {
		resp, err := http.Post(srv.URL+"/hook", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	if code, _ := post(`{"session_id":"s1","hook_event_name":"PostToolUse"}`); code != http.StatusNoContent {
		t.Fatalf("nothing to say: %d", code)
	}
	host.Aside(context.Background(), advisor.Advice{Note: "check the path"})
	code, body := post(`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash"}`)
	var out Output
	if code != 200 || json.Unmarshal([]byte(body), &out) != nil || out.Specific == nil || !strings.Contains(out.Specific.AdditionalContext, "check the path") {
		t.Fatalf("with a note: %d %s", code, body)
	}
	if code, _ := post(`{"session_id":"other","hook_event_name":"Stop"}`); code != http.StatusConflict {
		t.Fatalf("another session: %d", code)
	}
	if code, body := post(`{"session_id":`); code != http.StatusBadRequest || !strings.Contains(body, "hook event") {
		t.Fatalf("malformed: %d %s", code, body)
	}
	resp, err := http.Get(srv.URL + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var st Stats
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st.Hooks != 2 || st.Delivered != 1 {
		t.Fatalf("status = %+v", st)
	}
}

// TestToolBoundaryWaitsForTheCall: the agents write their transcript
// behind their hooks; the boundary reads on until the call the hook is
// about is there, so the steps before it are reported first.
func TestToolBoundaryWaitsForTheCall(t *testing.T) {
	ctx := context.Background()
	sc, f, a := newTest(t, Options{})
	f.polls = append(f.polls, transcript.Batch{}, transcript.Batch{}, stepBatch(1, "go"))
	sc.Handle(ctx, event(EventPostToolUseFailure, map[string]any{"tool_use_id": "c1"}))
	if f.pollCall != 3 {
		t.Fatalf("%d polls; want reading until the call shows (3)", f.pollCall)
	}
	if got := strings.Join(a.kinds(), " "); got != "step_ended@3" {
		t.Fatalf("events = %s", got)
	}
}

// TestToolBoundaryGivesUpWaiting: a call the transcript never shows
// costs at most FlushWait, and the hook still answers.
func TestToolBoundaryGivesUpWaiting(t *testing.T) {
	ctx := context.Background()
	var logged []string
	host := NewHost()
	sc, _, _ := newTest(t, Options{Host: host, FlushWait: 30 * time.Millisecond, Logf: func(f string, args ...any) { logged = append(logged, fmt.Sprintf(f, args...)) }})
	host.Aside(ctx, advisor.Advice{Note: "still delivered"})
	out, err := sc.Handle(ctx, event(EventPostToolUse, map[string]any{"tool_use_id": "never"}))
	if err != nil || out == nil || !strings.Contains(out.Specific.AdditionalContext, "still delivered") {
		t.Fatalf("out %+v err %v", out, err)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "never") {
		t.Fatalf("logged %q", logged)
	}
}

// TestToolBoundaryTakesAHeldReply: a reply the follower holds back
// (Claude Code may still add lines to it) that makes the call is enough:
// the transcript was read up to the call.
func TestToolBoundaryTakesAHeldReply(t *testing.T) {
	sc, f, a := newTest(t, Options{FlushWait: time.Hour})
	f.held = "c1"
	f.onRelease = stepBatch(1, "go")
	out, err := sc.Handle(context.Background(), event(EventPostToolUse, map[string]any{"tool_use_id": "c1"}))
	if err != nil || out != nil || f.pollCall != 1 || len(f.released) != 1 {
		t.Fatalf("out %+v err %v polls %d released %v", out, err, f.pollCall, f.released)
	}
	if got := strings.Join(a.kinds(), " "); got != "step_ended@3" {
		t.Fatalf("events = %s; want the released step reported", got)
	}
}

// TestParseInputRefusesWhatNoAgentSends: invalid UTF-8, ids and paths
// with control characters or too long; the error names the field and
// holds no raw control character.
func TestParseInputRefusesWhatNoAgentSends(t *testing.T) {
	for _, tc := range []struct{ name, event, want string }{
		{"invalid UTF-8", "{\"session_id\":\"s\xff1\",\"hook_event_name\":\"Stop\"}", "not valid UTF-8"},
		{"newline in the session id", `{"session_id":"s1\nx","hook_event_name":"Stop"}`, `session_id "s1\nx" holds control characters`},
		{"escape in the path", `{"session_id":"s1","hook_event_name":"Stop","transcript_path":"/t/\u001b[31m.jsonl"}`, `transcript_path "/t/\x1b[31m.jsonl" holds control characters`},
		{"bell in the event name", `{"session_id":"s1","hook_event_name":"Stop\u0007"}`, "hook_event_name"},
		{"NUL in the cwd", `{"session_id":"s1","hook_event_name":"Stop","cwd":"/w\u0000"}`, "cwd"},
		{"long session id", `{"session_id":"` + strings.Repeat("a", 300) + `","hook_event_name":"Stop"}`, "session_id is 300 bytes long, more than 256"},
		{"long path", `{"session_id":"s1","hook_event_name":"Stop","transcript_path":"/` + strings.Repeat("a", 5000) + `"}`, "transcript_path is 5001 bytes long"},
		{"too deep", `{"session_id":"s1","hook_event_name":"Stop","tool_input":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, "exceeded max depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseInput([]byte(tc.event))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.IndexFunc(err.Error(), func(r rune) bool { return r < ' ' }) >= 0 {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	// What agents do send: text with newlines where text goes.
	if _, err := ParseInput([]byte(`{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"line one\nline two","cwd":"/home/ann/src/app ü"}`)); err != nil {
		t.Fatal(err)
	}
}

func TestLogText(t *testing.T) {
	for in, want := range map[string]string{
		"plain /path/é ✓":   "plain /path/é ✓",
		"a\nb":              `a\u000ab`,
		"\x1b[31mred":       `\u001b[31mred`,
		"bad \xff byte":     `bad \xff byte`,
		"literal \uFFFD ok": "literal \uFFFD ok",
	} {
		if got := LogText(in); got != want {
			t.Errorf("LogText(%q) = %q, want %q", in, got, want)
		}
	}
}
