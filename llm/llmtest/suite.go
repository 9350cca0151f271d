package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
)

// Harness tells the suite how to build the adapter under test.
type Harness struct {
	// API is the wire API the adapter speaks, in fakellm's words:
	// "anthropic", "chat" or "responses".
	API string
	// New returns the adapter talking to the server at baseURL (fakellm's
	// address, without /v1) for the given model id, with a dummy key. It
	// must not retry on its own: the suite checks the first failure.
	New func(t *testing.T, baseURL, model string) llm.Model
	// NewThinking builds the adapter as New does, with the thinking map
	// tm; the ThinkingLevels case runs each of Thinking with it, and is
	// skipped when either is missing.
	NewThinking func(t *testing.T, baseURL, model string, tm llm.ThinkingMap) llm.Model
	// Thinking are the maps ThinkingLevels checks, each with the exact
	// request fields of every level.
	Thinking []ThinkingCase
}

// testModel is the model id every case scripts.
const testModel = "conformance-model"

// Run runs every conformance case as a subtest of t.
func Run(t *testing.T, h Harness) {
	if h.New == nil {
		t.Fatal("llmtest: Harness.New is nil")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, h)
		})
	}
}

type testCase struct {
	name string
	run  func(t *testing.T, h Harness)
}

var cases = []testCase{
	{"PlainText", testPlainText},
	{"StreamedDeltas", testStreamedDeltas},
	{"OneToolCall", testOneToolCall},
	{"SeveralToolCalls", testSeveralToolCalls},
	{"ToolResultRoundTrip", testToolResultRoundTrip},
	{"ThinkingAcrossTurns", testThinkingAcrossTurns},
	{"ThinkingLevels", testThinkingLevels},
	{"CacheReadUsage", testCacheReadUsage},
	{"Errors", testErrors},
	{"ContextWindow", testContextWindow},
	{"TransportError", testTransportError},
	{"CancelMidStream", testCancelMidStream},
	{"TruncatedStream", testTruncatedStream},
	{"MalformedStream", testMalformedStream},
}

// start serves script (rules for testModel) and returns the server and the
// adapter under test.
func start(t *testing.T, h Harness, script string) (*fakellm.Server, llm.Model) {
	t.Helper()
	srv := fakellm.StartTest(t, fakellm.MustParse(t, script))
	return srv, h.New(t, srv.URL(), testModel)
}

// collect drains a stream, checks the llm.Model contract on the way, and
// returns the events and the final error.
func collect(t *testing.T, stream func(yield func(llm.Event, error) bool)) ([]llm.Event, error) {
	t.Helper()
	var events []llm.Event
	var final error
	for ev, err := range stream {
		if final != nil {
			t.Fatalf("stream yielded %v after its error %v", ev.Type, final)
		}
		if err != nil {
			if ev.Type != 0 {
				t.Errorf("error yielded with a non-zero event %+v", ev)
			}
			final = err
			continue
		}
		if n := len(events); n > 0 && events[n-1].Type == llm.EventStop {
			t.Fatalf("event %v after the stop event", ev.Type)
		}
		events = append(events, ev)
	}
	if final == nil {
		if len(events) == 0 || events[len(events)-1].Type != llm.EventStop {
			t.Fatalf("successful stream did not end with a stop event: %v", types(events))
		}
	}
	return events, final
}

func types(events []llm.Event) []string {
	var s []string
	for _, e := range events {
		s = append(s, e.Type.String())
	}
	return s
}

// reply runs one request and accumulates it, failing the test on error.
func reply(t *testing.T, m llm.Model, req llm.Request) (*llm.Response, []llm.Event) {
	t.Helper()
	events, err := collect(t, m.Stream(context.Background(), req))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	var acc llm.Accumulator
	for _, ev := range events {
		if err := acc.Add(ev); err != nil {
			t.Fatalf("accumulate: %v", err)
		}
	}
	return acc.Response(), events
}

func ask(text string) llm.Request {
	return llm.Request{System: "You are a test.", Messages: []llm.Message{llm.UserText(text)}, MaxTokens: 1024}
}

func testPlainText(t *testing.T, h Harness) {
	_, m := start(t, h, `
rules:
  - model: conformance-model
    steps:
      - text: "Hello from the script."
`)
	resp, _ := reply(t, m, ask("hi"))
	if got, want := resp.Message.Text(), "Hello from the script."; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if resp.Message.Role != llm.RoleAssistant {
		t.Errorf("role = %q, want assistant", resp.Message.Role)
	}
	if resp.StopReason != llm.StopEndTurn {
		t.Errorf("stop reason = %q, want %q", resp.StopReason, llm.StopEndTurn)
	}
	if resp.Usage.Output <= 0 || resp.Usage.PromptTokens() <= 0 {
		t.Errorf("usage = %+v, want input and output tokens", resp.Usage)
	}
}

func testStreamedDeltas(t *testing.T, h Harness) {
	text := strings.Repeat("stream me in small pieces, please; ", 20) + "done ✓ ünïcode"
	_, m := start(t, h, fmt.Sprintf(`
rules:
  - model: conformance-model
    steps:
      - text: %q
        chunk: 7
`, text))
	resp, events := reply(t, m, ask("long"))
	var deltas int
	var sb strings.Builder
	for _, ev := range events {
		if ev.Type == llm.EventTextDelta {
			deltas++
			sb.WriteString(ev.Text)
		}
	}
	if deltas < 20 {
		t.Errorf("got %d text deltas, want the reply in many pieces", deltas)
	}
	if sb.String() != text || resp.Message.Text() != text {
		t.Errorf("reassembled text differs:\n got %q\nwant %q", sb.String(), text)
	}
	if n := countType(events, llm.EventUsage); n != 1 {
		t.Errorf("got %d usage events, want 1", n)
	}
}

func countType(events []llm.Event, typ llm.EventType) int {
	n := 0
	for _, ev := range events {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

var toolsForTest = []llm.Tool{
	{Name: "bash", Description: "Run a command.", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
	{Name: "read", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
}

func testOneToolCall(t *testing.T, h Harness) {
	srv, m := start(t, h, `
rules:
  - model: conformance-model
    steps:
      - text: "Let me look."
        tool_calls:
          - {id: call_1, name: bash, arguments: {command: "ls -la /tmp"}}
`)
	req := ask("list files")
	req.Tools = toolsForTest
	resp, events := reply(t, m, req)
	calls := resp.Message.ToolCalls()
	if len(calls) != 1 {
		t.Fatalf("got %d tool calls, want 1: %+v", len(calls), resp.Message)
	}
	if calls[0].Name != "bash" || calls[0].ID == "" {
		t.Errorf("tool call = %+v, want bash with an id", calls[0])
	}
	assertJSON(t, calls[0].Arguments, `{"command":"ls -la /tmp"}`)
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop reason = %q, want %q", resp.StopReason, llm.StopToolUse)
	}
	if countType(events, llm.EventToolCallStart) != 1 || countType(events, llm.EventToolCallEnd) != 1 {
		t.Errorf("events = %v, want one tool call start and end", types(events))
	}
	body := string(srv.Requests()[0].Body)
	for _, want := range []string{"bash", "Run a command.", `"command"`} {
		if !strings.Contains(body, want) {
			t.Errorf("request body lacks the tool definition part %q", want)
		}
	}
}

func testSeveralToolCalls(t *testing.T, h Harness) {
	_, m := start(t, h, `
rules:
  - model: conformance-model
    steps:
      - tool_calls:
          - {id: call_a, name: read, arguments: {path: a.go}}
          - {id: call_b, name: read, arguments: {path: b.go}}
          - {id: call_c, name: bash, arguments: {command: "go test ./..."}}
`)
	req := ask("read both")
	req.Tools = toolsForTest
	resp, _ := reply(t, m, req)
	calls := resp.Message.ToolCalls()
	if len(calls) != 3 {
		t.Fatalf("got %d tool calls, want 3", len(calls))
	}
	wantArgs := []string{`{"path":"a.go"}`, `{"path":"b.go"}`, `{"command":"go test ./..."}`}
	ids := map[string]bool{}
	for i, c := range calls {
		assertJSON(t, c.Arguments, wantArgs[i])
		ids[c.ID] = true
	}
	if len(ids) != 3 {
		t.Errorf("tool call ids %v are not distinct", ids)
	}
}

func testToolResultRoundTrip(t *testing.T, h Harness) {
	srv, m := start(t, h, `
rules:
  - model: conformance-model
    steps:
      - tool_calls:
          - {id: call_rt1, name: bash, arguments: {command: "cat notes.txt"}}
          - {id: call_rt2, name: read, arguments: {path: "missing.txt"}}
      - text: "The notes say hello."
`)
	req := ask("what do the notes say?")
	req.Tools = toolsForTest
	first, _ := reply(t, m, req)
	calls := first.Message.ToolCalls()
	if len(calls) != 2 {
		t.Fatalf("got %d tool calls, want 2", len(calls))
	}
	req.Messages = append(req.Messages, first.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		llm.ToolResult(calls[0].ID, false, llm.Text("RESULT-hello-from-notes")),
		llm.ToolResult(calls[1].ID, true, llm.Text("ERROR-no-such-file")),
	}})
	second, _ := reply(t, m, req)
	if got := second.Message.Text(); got != "The notes say hello." {
		t.Errorf("second reply = %q", got)
	}
	body := string(srv.Requests()[1].Body)
	for _, want := range []string{calls[0].ID, calls[1].ID, "RESULT-hello-from-notes", "ERROR-no-such-file", "cat notes.txt"} {
		if !strings.Contains(body, want) {
			t.Errorf("second request lacks %q:\n%s", want, body)
		}
	}
}

func testThinkingAcrossTurns(t *testing.T, h Harness) {
	srv, m := start(t, h, `
rules:
  - model: conformance-model
    steps:
      - thinking: "The user wants a number; 6 times 7."
        signature: "SIG-conformance-42"
        text: "42"
      - text: "Still 42."
`)
	req := ask("six times seven?")
	req.Thinking = llm.ThinkingMedium
	first, events := reply(t, m, req)
	var thinking *llm.Block
	for i, b := range first.Message.Content {
		if b.Type == llm.BlockThinking {
			thinking = &first.Message.Content[i]
		}
	}
	if thinking == nil {
		t.Fatalf("no thinking block in %+v (events %v)", first.Message, types(events))
	}
	if !strings.Contains(thinking.Text, "6 times 7") {
		t.Errorf("thinking text = %q", thinking.Text)
	}
	if first.Message.Text() != "42" {
		t.Errorf("text = %q, want 42", first.Message.Text())
	}
	if h.API == "chat" {
		// Chat Completions has no field to send reasoning back.
		return
	}
	if thinking.Signature == "" {
		t.Fatalf("thinking block has no signature")
	}
	req.Messages = append(req.Messages, first.Message, llm.UserText("are you sure?"))
	reply(t, m, req)
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "SIG-conformance-42") {
		t.Errorf("second request does not send the thinking signature back:\n%s", body)
	}
}

func testCacheReadUsage(t *testing.T, h Harness) {
	_, m := start(t, h, `
rules:
  - model: conformance-model
    repeat: true
    steps:
      - text: "ok"
`)
	req := ask("first question")
	req.System = strings.Repeat("A long, stable system prompt that the provider can cache. ", 200)
	first, _ := reply(t, m, req)
	req.Messages = append(req.Messages, first.Message, llm.UserText("second question"))
	second, _ := reply(t, m, req)
	if second.Usage.CacheRead <= 0 {
		t.Fatalf("second reply usage %+v has no cache reads", second.Usage)
	}
	if second.Usage.CacheRead < first.Usage.PromptTokens()/2 {
		t.Errorf("cache read %d, want most of the first prompt's %d tokens", second.Usage.CacheRead, first.Usage.PromptTokens())
	}
	if second.Usage.PromptTokens() <= first.Usage.PromptTokens() {
		t.Errorf("second prompt %d tokens, want more than the first's %d", second.Usage.PromptTokens(), first.Usage.PromptTokens())
	}
	if second.Usage.Input >= second.Usage.PromptTokens() {
		t.Errorf("input %d counts cached tokens too (prompt %d)", second.Usage.Input, second.Usage.PromptTokens())
	}
}

func testErrors(t *testing.T, h Harness) {
	tooLong := "prompt is too long: 250000 tokens > 200000 maximum"
	if h.API != "anthropic" {
		tooLong = "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens."
	}
	overloaded := 529
	if h.API != "anthropic" {
		overloaded = 503
	}
	tests := []struct {
		name       string
		fault      string
		kind       llm.ErrorKind
		status     int
		retryAfter string
	}{
		{"RateLimited", `{status: 429, retry_after: 7s, message: "slow down"}`, llm.RateLimited, 429, "7s"},
		{"Overloaded", fmt.Sprintf(`{status: %d, message: "overloaded"}`, overloaded), llm.Overloaded, overloaded, ""},
		{"Auth", `{status: 401, message: "invalid x-api-key"}`, llm.Auth, 401, ""},
		{"Forbidden", `{status: 403, message: "not allowed"}`, llm.Auth, 403, ""},
		{"BadRequest", `{status: 400, message: "messages: field required"}`, llm.BadRequest, 400, ""},
		{"ContextTooLong", fmt.Sprintf(`{status: 400, message: %q}`, tooLong), llm.ContextTooLong, 400, ""},
		{"Server", `{status: 500, message: "internal"}`, llm.Server, 500, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, m := start(t, h, fmt.Sprintf(`
rules:
  - model: conformance-model
    steps:
      - fault: %s
`, tt.fault))
			_, err := collect(t, m.Stream(context.Background(), ask("x")))
			if !errors.Is(err, tt.kind) {
				t.Fatalf("error = %v, want kind %q", err, tt.kind)
			}
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *llm.Error", err)
			}
			if e.Status != tt.status {
				t.Errorf("status = %d, want %d", e.Status, tt.status)
			}
			if e.Provider == "" {
				t.Errorf("error names no provider")
			}
			if tt.retryAfter != "" && e.RetryAfter.String() != tt.retryAfter {
				t.Errorf("retry after = %v, want %s", e.RetryAfter, tt.retryAfter)
			}
		})
	}
}

// testContextWindow: a prompt over fakellm's context window for the model
// is refused with the provider's own error, which the adapter must read
// as ContextTooLong.
func testContextWindow(t *testing.T, h Harness) {
	srv, m := start(t, h, `
context_windows: {conformance-model: 50}
rules:
  - model: conformance-model
    steps: [{text: "fits"}]
`)
	_, err := collect(t, m.Stream(context.Background(), ask(strings.Repeat("a long prompt ", 100))))
	if !errors.Is(err, llm.ContextTooLong) {
		t.Fatalf("error = %v, want kind %q", err, llm.ContextTooLong)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].StepIndex >= 0 {
		t.Errorf("the refused request consumed a step: %+v", reqs)
	}
	resp, err := llm.Accumulate(m.Stream(context.Background(), ask("short")))
	if err != nil || resp.Message.Text() != "fits" {
		t.Errorf("a prompt within the window: %v", err)
	}
}

func testTransportError(t *testing.T, h Harness) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, "rules:\n  - steps: [{text: unreachable}]\n"))
	url := srv.URL()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	m := h.New(t, url, testModel)
	_, err := collect(t, m.Stream(context.Background(), ask("x")))
	if !errors.Is(err, llm.Transport) {
		t.Fatalf("error = %v, want kind %q", err, llm.Transport)
	}
}

func testCancelMidStream(t *testing.T, h Harness) {
	_, m := start(t, h, `
rules:
  - model: conformance-model
    steps:
      - text: "this reply never finishes, it stalls in the middle of its text"
        chunk: 4
        fault: {stall: true, cut_after: 8}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sawEvent bool
	var final error
	for ev, err := range m.Stream(ctx, ask("x")) {
		if err != nil {
			final = err
			break
		}
		if ev.Type == llm.EventStop {
			t.Fatalf("stalled stream reported a stop")
		}
		if !sawEvent {
			sawEvent = true
			cancel()
		}
	}
	if !sawEvent {
		t.Fatalf("no event before the stall; final error %v", final)
	}
	if !errors.Is(final, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", final)
	}
}

func testTruncatedStream(t *testing.T, h Harness) {
	_, m := start(t, h, `
rules:
  - model: conformance-model
    steps:
      - text: "a reply cut short by the network, a reply cut short by the network"
        chunk: 5
        fault: {cut_after: 4}
`)
	events, err := collect(t, m.Stream(context.Background(), ask("x")))
	if !errors.Is(err, llm.Truncated) {
		t.Fatalf("error = %v after %v, want kind %q", err, types(events), llm.Truncated)
	}
	if countType(events, llm.EventStop) != 0 {
		t.Errorf("truncated stream reported a stop")
	}
}

func testMalformedStream(t *testing.T, h Harness) {
	_, m := start(t, h, `
rules:
  - model: conformance-model
    steps:
      - text: "garbled"
        fault: {malformed: true}
`)
	_, err := collect(t, m.Stream(context.Background(), ask("x")))
	if err == nil {
		t.Fatal("malformed reply gave no error")
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
}

func assertJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("arguments %s are not JSON: %v", got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		panic(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("arguments = %s, want %s", gb, wb)
	}
}
