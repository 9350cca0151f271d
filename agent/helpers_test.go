package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// TestMain fails the run if a test leaves a goroutine behind: the agent
// starts none, and bash's must end with each call.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// env is one test's world: a fakellm server, the real Anthropic adapter
// talking to it, a workspace folder with the real tools, and a session.
type env struct {
	srv   *fakellm.Server
	model llm.Model
	dir   string
	sess  *session.Session
	tools []tools.Tool
}

func newEnv(t *testing.T, script string) *env {
	t.Helper()
	e := newWorkspace(t)
	e.serve(t, script)
	return e
}

// newWorkspace makes the folder, tools and session of an env, without a
// model yet.
func newWorkspace(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ts, err := tools.NewSession(tools.Options{Cwd: dir, ArtifactsDir: sess.ArtifactsDir(), KillGrace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &env{dir: dir, sess: sess, tools: ts.Tools()}
}

// serve starts fakellm with script and points the env's model at it.
func (e *env) serve(t *testing.T, script string) {
	t.Helper()
	e.srv = fakellm.StartTest(t, fakellm.MustParse(t, script))
	// A transport of the test's own, closed at the end, so that no idle
	// connection goroutine outlives it.
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	m, err := anthropic.New(anthropic.Config{BaseURL: e.srv.URL(), APIKey: "k", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	e.model = m
}

// options returns agent options over the env, for a test to adjust.
func (e *env) options() agent.Options {
	return agent.Options{
		Model:   e.model,
		Info:    llm.ModelInfo{Provider: "anthropic", ID: "m", ContextWindow: 200000},
		System:  "You are a test agent.",
		Session: e.sess,
		Tools:   e.tools,
	}
}

func (e *env) agent(t *testing.T, opts agent.Options) *agent.Agent {
	t.Helper()
	a, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// body returns the raw body of the i-th request the server got.
func (e *env) body(t *testing.T, i int) string {
	t.Helper()
	reqs := e.srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("server got %d requests, want more than %d", len(reqs), i)
	}
	return string(reqs[i].Body)
}

// inOrder fails t unless every part occurs in s, each after the one
// before.
func inOrder(t *testing.T, what, s string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if i < 0 {
			t.Errorf("%s: %q not found after offset %d in:\n%s", what, p, at, s)
			return
		}
		at += i + len(p)
	}
}

// recorder keeps every event an agent emits.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

// record keeps a's events from now on; when the test ends, it checks
// them, and those of every subagent, against the grammar in the package
// documentation.
func record(t *testing.T, a *agent.Agent) *recorder {
	r := &recorder{}
	a.Subscribe(func(ev agent.Event) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	})
	t.Cleanup(func() {
		var outer []string
		inner := map[string][]string{}
		for _, ev := range r.all() {
			outer = append(outer, string(ev.Type))
			if ev.Type == agent.EventSubagent {
				inner[ev.SubagentID] = append(inner[ev.SubagentID], string(ev.Subagent.Type))
			}
		}
		checkGrammar(t, "events", outer)
		for id, types := range inner {
			checkGrammar(t, "events of subagent "+id, types)
		}
	})
	return r
}

// grammar is the event grammar of the package documentation as a regular
// expression over event types, each followed by a space. A recording is
// any number of runs and of the events emitted outside a run.
var grammar = func() *regexp.Regexp {
	rewrite := `(history_rewritten )`
	compaction := `(compaction_start compaction_end ` + rewrite + `?)`
	tool := `((approval_request approval_end )?(tool_start (subagent_event )*tool_end |tool_end ))`
	boundary := `((steer_delivered )*(injection_delivered )*(custom_appended )*)`
	request := `((steer_delivered )*` + compaction + `?(message_delta )*)`
	step := `(` + rewrite + `?` + compaction + `?step_start ` + request + `(request_aborted ` + request + `)*(message_end )?` + tool + `*step_end (` + boundary + `|aborted )?` +
		`|` + rewrite + `?` + compaction + `aborted )`
	turn := `(turn_start (steer_delivered )*` + step + `+turn_end )`
	run := `(` + rewrite + `?` + turn + `((follow_up_delivered )?` + turn + `)*(aborted )?(custom_appended )*idle )`
	outside := `(custom_appended |` + compaction + `|` + rewrite + `)`
	return regexp.MustCompile(`^(` + run + `|` + outside + `)*$`)
}()

func checkGrammar(t *testing.T, what string, types []string) {
	t.Helper()
	if s := strings.Join(types, " ") + " "; len(types) > 0 && !grammar.MatchString(s) {
		t.Errorf("%s do not follow the documented order:\n%s", what, s)
	}
}

func (r *recorder) all() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

// types lists the event types, runs of message_delta folded into one.
func (r *recorder) types() []string {
	var out []string
	for _, ev := range r.all() {
		if ev.Type == agent.EventMessageDelta && len(out) > 0 && out[len(out)-1] == string(ev.Type) {
			continue
		}
		out = append(out, string(ev.Type))
	}
	return out
}

// first returns the first event of type t.
func (r *recorder) first(t *testing.T, typ agent.EventType) agent.Event {
	t.Helper()
	for _, ev := range r.all() {
		if ev.Type == typ {
			return ev
		}
	}
	t.Fatalf("no %s event in %v", typ, r.types())
	return agent.Event{}
}

// on calls fn, once, at the first event of type typ.
func on(a *agent.Agent, typ agent.EventType, fn func(agent.Event)) {
	var once sync.Once
	a.Subscribe(func(ev agent.Event) {
		if ev.Type == typ {
			once.Do(func() { fn(ev) })
		}
	})
}

// prompt runs a.Prompt in a goroutine the test owns; the returned channel
// yields its error. The test's cleanup waits for it.
func prompt(t *testing.T, a *agent.Agent, text string) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- a.Prompt(context.Background(), text)
	}()
	t.Cleanup(func() {
		a.Abort()
		<-finished
	})
	return done
}

// fifo makes a named pipe in dir and returns its path.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// awaitWriter blocks until a process opened the fifo for writing and
// closed it again, which a bash command does with `echo > fifo`: from then
// on the command is running past that point. If the run ends first, it
// fails t.
func awaitWriter(t *testing.T, path string, run <-chan error) {
	t.Helper()
	opened := make(chan error, 1)
	go func() {
		f, err := os.Open(path) // blocks until a writer opens it
		if err == nil {
			_, err = f.Read(make([]byte, 64))
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
	case err := <-run:
		// Unblock the reader by opening the other end ourselves.
		if w, werr := os.OpenFile(path, os.O_WRONLY, 0); werr == nil {
			w.Close()
		}
		<-opened
		t.Fatalf("the run ended before the command wrote %s: %v", path, err)
	}
}

// release writes a line to a fifo a command is reading.
func release(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0) // blocks until the reader opens it
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("released\n"); err != nil {
		t.Fatal(err)
	}
}

// toolResults returns the tool_result blocks on the session's branch.
func toolResults(t *testing.T, s *session.Session) []llm.Block {
	t.Helper()
	path, err := s.Path(s.Leaf())
	if err != nil {
		t.Fatal(err)
	}
	var out []llm.Block
	for _, e := range path {
		if m, ok := e.Body.(*session.Message); ok {
			for _, b := range m.Message.Content {
				if b.Type == llm.BlockToolResult {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

func resultText(b llm.Block) string { return llm.Message{Content: b.Content}.Text() }

// scripted is an in-process llm.Model: each request gets the next reply,
// a function of the request so that tests can look at it. No network, so
// it runs inside synctest bubbles and benchmarks.
type scripted struct {
	mu      sync.Mutex
	replies []func(llm.Request) []llm.Event
	n       int
}

func (m *scripted) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		m.mu.Lock()
		if m.n >= len(m.replies) {
			m.mu.Unlock()
			yield(llm.Event{}, errors.New("scripted: no reply left"))
			return
		}
		reply := m.replies[m.n]
		m.n++
		m.mu.Unlock()
		for _, ev := range reply(req) {
			if err := ctx.Err(); err != nil {
				yield(llm.Event{}, err)
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// textReply is a reply of one text block.
func textReply(text string) func(llm.Request) []llm.Event {
	return func(llm.Request) []llm.Event {
		return []llm.Event{
			{Type: llm.EventTextDelta, Text: text},
			{Type: llm.EventUsage, Usage: llm.Usage{Input: 10, Output: 5}},
			{Type: llm.EventStop, StopReason: llm.StopEndTurn},
		}
	}
}

// callReply is a reply of one tool call.
func callReply(id, name string, args any) func(llm.Request) []llm.Event {
	raw, _ := json.Marshal(args)
	return func(llm.Request) []llm.Event {
		return []llm.Event{
			{Type: llm.EventToolCallStart, ToolCallID: id, ToolName: name},
			{Type: llm.EventToolCallEnd, Arguments: raw},
			{Type: llm.EventUsage, Usage: llm.Usage{Input: 10, Output: 5}},
			{Type: llm.EventStop, StopReason: llm.StopToolUse},
		}
	}
}

// echoTool is an in-memory tool that returns its text argument.
type echoTool struct{}

func (echoTool) Definition() llm.Tool {
	return llm.Tool{Name: "echo", Description: "Echo text.", Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}
}

func (echoTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var args struct{ Text string }
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: []llm.Block{llm.Text(args.Text)}}, nil
}

// memSession makes a session in a temporary folder.
func memSession(t testing.TB) *session.Session {
	t.Helper()
	dir := t.TempDir()
	s, err := session.NewManager(dir, session.Options{}).New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
