package fakellm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
)

// sdkCall makes one request with an official SDK and reads the whole
// reply. It reports whether the reply was complete (for a stream: whether
// its terminal event arrived) and the error the SDK gave.
type sdkCall func(ctx context.Context, s *Server, stream bool) (complete bool, err error)

var sdkCalls = []struct {
	api  string
	call sdkCall
}{
	{APIAnthropic, func(ctx context.Context, s *Server, stream bool) (bool, error) {
		c := anthropicClient(s)
		p := userParams("model-x", "hi")
		if !stream {
			_, err := c.Messages.New(ctx, p)
			return err == nil, err
		}
		st := c.Messages.NewStreaming(ctx, p)
		defer st.Close()
		done := false
		for st.Next() {
			done = done || st.Current().Type == "message_stop"
		}
		return done, st.Err()
	}},
	{APIChat, func(ctx context.Context, s *Server, stream bool) (bool, error) {
		c := openaiClient(s)
		p := chatParams("model-x", openai.UserMessage("hi"))
		if !stream {
			_, err := c.Chat.Completions.New(ctx, p)
			return err == nil, err
		}
		st := c.Chat.Completions.NewStreaming(ctx, p)
		defer st.Close()
		done := false
		for st.Next() {
			ch := st.Current()
			done = done || len(ch.Choices) > 0 && ch.Choices[0].FinishReason != ""
		}
		return done, st.Err()
	}},
	{APIResponses, func(ctx context.Context, s *Server, stream bool) (bool, error) {
		c := openaiClient(s)
		p := responsesParams("model-x", "hi")
		if !stream {
			_, err := c.Responses.New(ctx, p)
			return err == nil, err
		}
		st := c.Responses.NewStreaming(ctx, p)
		defer st.Close()
		done := false
		for st.Next() {
			done = done || st.Current().Type == "response.completed"
		}
		return done, st.Err()
	}},
}

// eachAPI runs f for every API, streaming and not, against a fresh server
// for the step.
func eachAPI(t *testing.T, step string, f func(t *testing.T, s *Server, call sdkCall, stream bool)) {
	for _, c := range sdkCalls {
		t.Run(c.api, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				f(t, serveStep(t, step), c.call, stream)
			})
		})
	}
}

func TestFaultStatusAnthropic(t *testing.T) {
	s := StartTest(t, MustParse(t, `
rules:
  - steps:
    - {fault: {status: 429, retry_after: 1.5s, message: slow down}}
    - {fault: {status: 529}}
    - {fault: {status: 401}}
    - {fault: {status: 400}}
    - {fault: {status: 500}}
`))
	c := anthropicClient(s)
	want := []struct {
		status int
		typ    string
	}{{429, "rate_limit_error"}, {529, "overloaded_error"}, {401, "authentication_error"}, {400, "invalid_request_error"}, {500, "api_error"}}
	for i, w := range want {
		var err error
		if i%2 == 0 {
			_, err = c.Messages.New(t.Context(), userParams("claude-x", "hi"))
		} else {
			st := c.Messages.NewStreaming(t.Context(), userParams("claude-x", "hi"))
			for st.Next() {
				t.Errorf("stream %d delivered an event", i)
			}
			err = st.Err()
		}
		var aerr *anthropic.Error
		if !errors.As(err, &aerr) {
			t.Fatalf("request %d: error %v is not an *anthropic.Error", i, err)
		}
		if aerr.StatusCode != w.status || string(aerr.Type()) != w.typ {
			t.Errorf("request %d: status %d type %q, want %d %q", i, aerr.StatusCode, aerr.Type(), w.status, w.typ)
		}
		if i == 0 {
			if aerr.Message != "slow down" {
				t.Errorf("message %q", aerr.Message)
			}
			h := aerr.Response.Header
			if h.Get("Retry-After") != "2" || h.Get("Retry-After-Ms") != "1500" {
				t.Errorf("Retry-After %q, retry-after-ms %q; want 2, 1500", h.Get("Retry-After"), h.Get("Retry-After-Ms"))
			}
		}
	}
}

func TestFaultStatusOpenAI(t *testing.T) {
	s := StartTest(t, MustParse(t, `
rules:
  - steps:
    - {fault: {status: 429, retry_after: 250ms, message: slow down}}
    - {fault: {status: 503}}
`))
	c := openaiClient(s)
	_, err := c.Chat.Completions.New(t.Context(), chatParams("gpt-x", openai.UserMessage("hi")))
	var oerr *openai.Error
	if !errors.As(err, &oerr) {
		t.Fatalf("error %v is not an *openai.Error", err)
	}
	if oerr.StatusCode != 429 || oerr.Message != "slow down" || oerr.Code != "rate_limit_exceeded" {
		t.Errorf("got %d %q %q, want 429 slow down rate_limit_exceeded", oerr.StatusCode, oerr.Message, oerr.Code)
	}
	if h := oerr.Response.Header; h.Get("Retry-After") != "1" || h.Get("Retry-After-Ms") != "250" {
		t.Errorf("Retry-After %q, retry-after-ms %q; want 1, 250", h.Get("Retry-After"), h.Get("Retry-After-Ms"))
	}
	st := c.Responses.NewStreaming(t.Context(), responsesParams("gpt-x", "hi"))
	for st.Next() {
		t.Error("stream delivered an event")
	}
	if !errors.As(st.Err(), &oerr) || oerr.StatusCode != 503 || oerr.Type != "server_error" {
		t.Errorf("stream error %v, want a 503 server_error", st.Err())
	}
}

// The SDKs' own retries honour retry-after-ms and get the next step.
func TestFaultRetriedBySDK(t *testing.T) {
	s := StartTest(t, MustParse(t, `
rules:
  - api: anthropic
    steps: [{fault: {status: 529, retry_after: 10ms}}, {text: recovered}]
  - api: chat
    steps: [{fault: {status: 429, retry_after: 10ms}}, {text: recovered}]
`))
	ac := anthropicClient(s, aoption.WithMaxRetries(2))
	msg, err := ac.Messages.New(t.Context(), userParams("claude-x", "hi"))
	if err != nil || msg.Content[0].Text != "recovered" {
		t.Fatalf("anthropic: %v, %v", msg, err)
	}
	oc := openaiClient(s, ooption.WithMaxRetries(2))
	cc, err := oc.Chat.Completions.New(t.Context(), chatParams("gpt-x", openai.UserMessage("hi")))
	if err != nil || cc.Choices[0].Message.Content != "recovered" {
		t.Fatalf("chat: %v, %v", cc, err)
	}
	var statuses []int
	for _, r := range s.Requests() {
		statuses = append(statuses, r.Status)
	}
	if want := []int{529, 200, 429, 200}; !equalInts(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFaultCut(t *testing.T) {
	eachAPI(t, `{text: "a reply long enough to need many events", fault: {cut_after: 3}}`, func(t *testing.T, s *Server, call sdkCall, stream bool) {
		complete, err := call(t.Context(), s, stream)
		if complete || err == nil {
			t.Errorf("complete %v, error %v; want an incomplete reply and an error", complete, err)
		}
	})
}

func TestFaultMalformed(t *testing.T) {
	eachAPI(t, `{text: "fine words", fault: {malformed: true}}`, func(t *testing.T, s *Server, call sdkCall, stream bool) {
		complete, err := call(t.Context(), s, stream)
		if complete || err == nil {
			t.Errorf("complete %v, error %v; want an incomplete reply and an error", complete, err)
		}
	})
}

func TestFaultStallDeadline(t *testing.T) {
	eachAPI(t, `{text: "never sent", fault: {stall: true}}`, func(t *testing.T, s *Server, call sdkCall, stream bool) {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		complete, err := call(ctx, s, stream)
		if complete || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("complete %v, error %v; want the deadline", complete, err)
		}
		closeWithin(t, s, 10*time.Second)
	})
}

func TestDelayHonoursCancellation(t *testing.T) {
	s := serveStep(t, `{text: late, delay: 1h}`)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := sdkCalls[0].call(ctx, s, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the deadline", err)
	}
	closeWithin(t, s, 10*time.Second)
}

func TestDelay(t *testing.T) {
	s := serveStep(t, `{text: soon, delay: 20ms}`)
	start := time.Now()
	if complete, err := sdkCalls[1].call(t.Context(), s, true); !complete || err != nil {
		t.Fatalf("complete %v, error %v", complete, err)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("replied after %v, before the delay", d)
	}
}

// Close ends a stalled stream whose client is still waiting.
func TestCloseEndsStalledStream(t *testing.T) {
	s := serveStep(t, `{text: "never sent", fault: {stall: true}}`)
	c := anthropicClient(s)
	st := c.Messages.NewStreaming(t.Context(), userParams("claude-x", "hi"))
	defer st.Close()
	if !st.Next() || st.Current().Type != "message_start" {
		t.Fatalf("first event %q, %v; want message_start", st.Current().Type, st.Err())
	}
	ended := make(chan error, 1)
	go func() {
		for st.Next() {
		}
		ended <- st.Err()
	}()
	closeWithin(t, s, 10*time.Second)
	select {
	case err := <-ended:
		if err == nil {
			t.Error("stream ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("client still waiting after Close")
	}
}

// Close ends a stalled JSON reply whose headers are out.
func TestCloseEndsStalledBody(t *testing.T) {
	s := serveStep(t, `{fault: {stall: true}}`)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/v1/chat/completions",
		strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := s.Requests()[0].Status; got != 200 {
		t.Errorf("recorded status %d while stalled, want 200", got)
	}
	closeWithin(t, s, 10*time.Second)
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("body read completed after Close")
	}
}

func closeWithin(t *testing.T, s *Server, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(d):
		t.Fatalf("Close still running after %v", d)
	}
}

// Stall with cut_after sends that many events, then hangs until Close.
func TestStallAfterEvents(t *testing.T) {
	s := serveStep(t, `{text: "abcdefghijklmnopqrstuvwxyz", chunk: 2, fault: {stall: true, cut_after: 5}}`)
	c := anthropicClient(s)
	st := c.Messages.NewStreaming(t.Context(), userParams("claude-x", "hi"))
	defer st.Close()
	// Five events on the wire: message_start, ping (which the SDK does not
	// surface), content_block_start and two deltas.
	var types []string
	for range 4 {
		if !st.Next() {
			t.Fatalf("stream ended after %v: %v", types, st.Err())
		}
		types = append(types, string(st.Current().Type))
	}
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_delta"}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("events %v, want %v", types, want)
	}
	ended := make(chan bool, 1)
	go func() { ended <- st.Next() }()
	closeWithin(t, s, 10*time.Second)
	if more := <-ended; more {
		t.Error("another event arrived from a stalled stream")
	}
}
