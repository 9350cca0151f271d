package fakellm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chatText posts a minimal chat request and returns the reply text, or the
// status and error message for a non-200 status.
func chatText(t *testing.T, s *Server, model, user string) string {
	t.Helper()
	text, err := askChat(s, model, user)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// askChat is chatText for goroutines other than the test's.
func askChat(s *Server, model, user string) (string, error) {
	body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":%q}]}`, model, user)
	resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		Choices []struct {
			Message struct{ Content string }
		}
		Error struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", fmt.Errorf("decode reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("%d: %s", resp.StatusCode, v.Error.Message), nil
	}
	if len(v.Choices) != 1 {
		return "", fmt.Errorf("%d choices", len(v.Choices))
	}
	return v.Choices[0].Message.Content, nil
}

func TestRuleSelection(t *testing.T) {
	s := StartTest(t, MustParse(t, `
rules:
  - name: weather
    match: ["weather", "Paris"]
    steps: [{text: sunny}, {text: rainy}]
  - name: claude only
    model: "claude-*"
    steps: [{text: claude}]
    repeat: true
  - name: responses only
    api: responses
    steps: [{text: responses}]
  - name: fallback
    steps: [{text: one}, {text: two}]
    repeat: true
`))
	tests := []struct{ model, user, want string }{
		{"gpt-x", "weather in Paris?", "sunny"},
		{"gpt-x", "weather in Rome?", "one"}, // lacks "Paris"
		{"claude-3", "weather in Paris?", "rainy"},
		{"claude-3", "weather in Paris?", "claude"}, // weather is used up
		{"claude-3", "hello", "claude"},
		{"gpt-x", "hello", "two"},
		{"gpt-x", "hello", "two"}, // repeats its last step
	}
	for i, tt := range tests {
		if got := chatText(t, s, tt.model, tt.user); got != tt.want {
			t.Errorf("request %d (%s, %q) = %q, want %q", i, tt.model, tt.user, got, tt.want)
		}
	}
	var got []string
	for _, r := range s.Requests() {
		got = append(got, fmt.Sprintf("%s %d/%d", r.Rule, r.RuleIndex, r.StepIndex))
	}
	want := []string{"weather 0/0", "fallback 3/0", "weather 0/1", "claude only 1/0", "claude only 1/0", "fallback 3/1", "fallback 3/1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestNoMatchingRule(t *testing.T) {
	s := StartTest(t, MustParse(t, `
rules:
  - {name: greeter, model: "claude-*", steps: [{text: hi}]}
  - {api: responses, steps: [{text: hi}]}
  - {match: [secret], steps: [{text: hi}]}
`))
	got := chatText(t, s, "gpt-x", "hello")
	for _, want := range []string{
		"500: ", `no rule for model "gpt-x" on api chat`,
		`rule 0 (greeter): model "gpt-x" does not match "claude-*"`,
		"rule 1: api is chat, not responses",
		`rule 2: body lacks "secret"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("reply %q lacks %q", got, want)
		}
	}
	// An exhausted rule says so, in the Anthropic error shape.
	chatText(t, s, "gpt-x", "secret")
	status, body := post(t, s, "/v1/messages", `{"model":"gpt-x","messages":[{"role":"user","content":"secret"}]}`)
	var e struct {
		Type  string
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatal(err)
	}
	if status != 500 || e.Type != "error" || e.Error.Type != "api_error" || !strings.Contains(e.Error.Message, "rule 2: all 1 steps served") {
		t.Errorf("got %d %s", status, body)
	}
	r := s.Requests()[0]
	if r.RuleIndex != -1 || r.StepIndex != -1 || r.Status != 500 {
		t.Errorf("recorded %+v", r)
	}
}

func TestConcurrentRequestsConsumeEachStepOnce(t *testing.T) {
	const n = 20
	var b strings.Builder
	b.WriteString("rules:\n  - steps:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - {text: step%d}\n", i)
	}
	s := StartTest(t, MustParse(t, b.String()))
	var wg sync.WaitGroup
	replies := make(chan string, n)
	for range n {
		wg.Go(func() {
			text, err := askChat(s, "m", "hi")
			if err != nil {
				t.Error(err)
			}
			replies <- text
		})
	}
	wg.Wait()
	close(replies)
	seen := map[string]bool{}
	for r := range replies {
		if seen[r] {
			t.Errorf("step %q served twice", r)
		}
		seen[r] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct replies, want %d", len(seen), n)
	}
	for i, r := range s.Requests() {
		if r.StepIndex != i {
			t.Errorf("request %d has step %d: Requests is not in step order", i, r.StepIndex)
		}
	}
}

func TestRequestsAndLog(t *testing.T) {
	var log syncBuffer
	s := StartTest(t, MustParse(t, `
rules:
  - {name: only, steps: [{text: hello}], repeat: true}
`), WithLog(&log))
	body := `{"model":"claude-x","stream":true,"max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
	status, _ := post(t, s, "/v1/messages?beta=true", body, "X-Api-Key", "sk-secret", "Authorization", "Bearer sk-secret", "Anthropic-Version", "2023-06-01")
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	post(t, s, "/v1/messages/count_tokens", `{"model":"claude-x","messages":[{"role":"user","content":"hi"}]}`)
	get(t, s, "/v1/nowhere")
	// Close waits for the handlers, which log after replying.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	r := reqs[0]
	if r.API != APIAnthropic || r.Method != "POST" || r.Path != "/v1/messages" || r.Model != "claude-x" || !r.Stream ||
		r.Rule != "only" || r.RuleIndex != 0 || r.StepIndex != 0 || r.Status != 200 || r.Time.IsZero() {
		t.Errorf("request %+v", r)
	}
	if string(r.Body) != body {
		t.Errorf("body %s, want %s", r.Body, body)
	}
	if r.Header.Get("X-Api-Key") != Redacted || r.Header.Get("Authorization") != Redacted || r.Header.Get("Anthropic-Version") != "2023-06-01" {
		t.Errorf("headers %v", r.Header)
	}
	if r.Usage.Output != tokens(len("hello")) || r.Usage.Input == 0 {
		t.Errorf("usage %+v", r.Usage)
	}
	if reqs[1].API != APIAnthropic || reqs[1].RuleIndex != -1 || reqs[1].Usage.Input != r.Usage.Input {
		t.Errorf("count_tokens request %+v", reqs[1])
	}
	if reqs[2].API != "" || reqs[2].Status != 404 {
		t.Errorf("unknown path request %+v", reqs[2])
	}

	var lines []logLine
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %s: %v", sc.Bytes(), err)
		}
		if strings.Contains(sc.Text(), "sk-secret") || strings.Contains(sc.Text(), `"content"`) {
			t.Errorf("log line holds the request: %s", sc.Text())
		}
		lines = append(lines, l)
	}
	if len(lines) != 3 {
		t.Fatalf("%d log lines, want 3:\n%s", len(lines), log.String())
	}
	l := lines[0]
	if l.API != "anthropic" || l.Path != "/v1/messages" || l.Model != "claude-x" || !l.Stream || l.Rule != "only" ||
		l.Status != 200 || l.Usage != r.Usage || l.DurationMS < 0 {
		t.Errorf("log line %+v", l)
	}
	if lines[2].Status != 404 || lines[2].Error == "" {
		t.Errorf("log line %+v", lines[2])
	}
}

func TestEndpointErrors(t *testing.T) {
	s := serveStep(t, `{text: hi}`)
	tests := []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/v1/messages", "", 405},
		{"POST", "/v1/models", "{}", 405},
		{"POST", "/v1/complete", "{}", 404},
		{"GET", "/v1/models/unknown", "", 404},
		{"POST", "/v1/chat/completions", "{not json", 400},
		{"POST", "/v1/responses", `{"model": 5}`, 400},
	}
	for _, tt := range tests {
		req, err := http.NewRequestWithContext(t.Context(), tt.method, s.URL()+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		status, body := do(t, req)
		var e struct {
			Error struct{ Message, Type string }
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
			t.Errorf("%s %s: body %s is not a JSON error (%v)", tt.method, tt.path, body, err)
		}
		if status != tt.status {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, status, tt.status)
		}
	}
}

func TestStartRejectsInvalidScript(t *testing.T) {
	if _, err := Start(nil); err == nil {
		t.Error("Start(nil) succeeded")
	}
	_, err := Start(&Script{Rules: []Rule{{Steps: []Step{{}}}}})
	if err == nil || !strings.Contains(err.Error(), "rules[0].steps[0]") {
		t.Errorf("Start with an empty step: %v", err)
	}
}

func TestServerWithGoScript(t *testing.T) {
	s := StartTest(t, &Script{Rules: []Rule{{
		Model: "m",
		Steps: []Step{{Text: "from Go", Delay: Duration(0)}},
	}}})
	if got := chatText(t, s, "m", "hi"); got != "from Go" {
		t.Errorf("got %q", got)
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q", s.URL())
	}
}

// syncBuffer is a bytes.Buffer safe for the server's log writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
