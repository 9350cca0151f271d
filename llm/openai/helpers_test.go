package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/llm"
)

// assertJSON compares got, marshalled, with the JSON text want, ignoring
// key order and spacing.
func assertJSON(t *testing.T, got any, want string) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var g, w any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("unmarshal got: %v", err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v\n%s", err, want)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("JSON mismatch (-want +got):\n%s\ngot: %s", diff, b)
	}
}

// field returns the value at a dotted path of a JSON document, for tests
// that check a few fields of a large request.
func field(t *testing.T, doc any, path string) any {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	return v
}

func newModel(t *testing.T, cfg Config) *Model {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// collect drains a stream, checking that an error comes last and alone.
func collect(t *testing.T, stream func(func(llm.Event, error) bool)) ([]llm.Event, error) {
	t.Helper()
	var events []llm.Event
	var final error
	for ev, err := range stream {
		if final != nil {
			t.Fatalf("event %v after error %v", ev.Type, final)
		}
		if err != nil {
			if ev.Type != 0 {
				t.Errorf("error came with event %+v", ev)
			}
			final = err
			continue
		}
		events = append(events, ev)
	}
	return events, final
}

// accumulate runs req and folds the reply, failing t on error.
func accumulate(t *testing.T, m llm.Model, req llm.Request) (*llm.Response, []llm.Event) {
	t.Helper()
	events, err := collect(t, m.Stream(context.Background(), req))
	if err != nil {
		t.Fatalf("stream: %v (after %v)", err, eventTypes(events))
	}
	var acc llm.Accumulator
	for _, ev := range events {
		if err := acc.Add(ev); err != nil {
			t.Fatalf("accumulate: %v", err)
		}
	}
	return acc.Response(), events
}

func eventTypes(events []llm.Event) []string {
	var s []string
	for _, e := range events {
		s = append(s, e.Type.String())
	}
	return s
}

func userText(s string) llm.Request {
	return llm.Request{Messages: []llm.Message{llm.UserText(s)}}
}

// rawServer serves canned server-sent events, for the quirks of servers
// that fakellm does not imitate. Each reply is a list of data lines (or
// "event: NAME\ndata: ..." blocks); the body ends after the last.
type rawServer struct {
	*httptest.Server
	bodies chan []byte
}

// sseReply writes events as a text/event-stream body.
func sseReply(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			if !strings.HasPrefix(e, "event:") {
				e = "data: " + e
			}
			fmt.Fprintf(w, "%s\n\n", e)
		}
	}
}

// startRaw starts a server answering every request with h and keeping
// the request bodies.
func startRaw(t *testing.T, h http.HandlerFunc) *rawServer {
	t.Helper()
	s := &rawServer{bodies: make(chan []byte, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body json.RawMessage
		_ = json.NewDecoder(r.Body).Decode(&body)
		select {
		case s.bodies <- body:
		default:
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *rawServer) model(t *testing.T, cfg Config) *Model {
	t.Helper()
	cfg.BaseURL = s.URL + "/v1"
	return newModel(t, cfg)
}
