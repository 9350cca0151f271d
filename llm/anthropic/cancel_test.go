package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/llm"
)

// stallingServer sends the start of a reply, then holds the connection until
// the client goes away, which it reports on the returned channel.
func stallingServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse("message_start", msgStart)+
			sse("content_block_start", blockStart(0, `{"type":"text","text":""}`))+
			sse("content_block_delta", blockDelta(0, `{"type":"text_delta","text":"one"}`))+
			sse("content_block_delta", blockDelta(0, `{"type":"text_delta","text":"two"}`)))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	}))
	t.Cleanup(srv.Close)
	return srv, gone
}

// waitGone fails the test unless the server saw the client go away.
func waitGone(t *testing.T, gone <-chan struct{}) {
	t.Helper()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection was not closed")
	}
}

func TestStreamCancel(t *testing.T) {
	srv, gone := stallingServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []llm.Event
	var final error
	for ev, err := range newTestModel(t, srv.URL).Stream(ctx, llm.Request{Messages: []llm.Message{llm.UserText("hi")}}) {
		if err != nil {
			final = err
			continue
		}
		got = append(got, ev)
		cancel()
	}
	if !errors.Is(final, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", final)
	}
	// Cancelled after the first event: the second, already buffered, is
	// not delivered; the usage of message_start is, as it was paid for.
	want := []llm.Event{{Type: llm.EventTextDelta, Text: "one"}, {Type: llm.EventUsage, Usage: llm.Usage{Input: 12, Output: 1, CacheRead: 100, CacheWrite: 30}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events after cancelling (-want +got):\n%s", diff)
	}
	waitGone(t, gone)
}

func TestStreamCancelledBeforeStart(t *testing.T) {
	srv, _ := replay(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := collect(t, ctx, newTestModel(t, srv.URL))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestStreamBreakClosesBody(t *testing.T) {
	srv, gone := stallingServer(t)
	for range newTestModel(t, srv.URL).Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}) {
		break
	}
	waitGone(t, gone)
}

// TestStreamStallAfterStop checks that a server holding the body open after
// message_stop delays the reply by at most drainTimeout, and that nothing it
// sends after message_stop is reported.
func TestStreamStallAfterStop(t *testing.T) {
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse("message_start", msgStart)+
			sse("content_block_start", blockStart(0, `{"type":"text","text":""}`))+
			sse("content_block_delta", blockDelta(0, `{"type":"text_delta","text":"done"}`))+
			sse("content_block_stop", blockStop(0))+
			sse("message_delta", msgDelta("end_turn", `{"output_tokens":1}`))+
			sse("message_stop", msgStop)+
			sse("content_block_delta", blockDelta(0, `{"type":"text_delta","text":"after the end"}`)))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	}))
	defer srv.Close()
	events, err := collect(t, context.Background(), newTestModel(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	var types []llm.EventType
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	if diff := cmp.Diff([]llm.EventType{llm.EventTextDelta, llm.EventUsage, llm.EventStop}, types); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	waitGone(t, gone)
}
