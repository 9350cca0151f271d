package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/llm"
)

func TestResponsesStream(t *testing.T) {
	srv, m := fakellmModel(t, `
rules:
  - steps:
      - thinking: "Both files matter."
        signature: "ENCRYPTED-1"
        text: "Reading both."
        chunk: 5
        tool_calls:
          - {id: call_a, name: read, arguments: {path: a.go}}
          - {id: call_b, name: read, arguments: {path: b.go}}
        usage: {input: 40, cache_read: 60, output: 12}
      - text: "Done."
`, Config{API: llm.APIOpenAIResponses, Reasoning: true, Thinking: llm.ThinkingLow})
	req := userText("read a and b")
	first, _ := accumulate(t, m, req)

	content := first.Message.Content
	if len(content) != 4 {
		t.Fatalf("got %d blocks, want thinking, text and two calls: %+v", len(content), content)
	}
	th := content[0]
	if th.Type != llm.BlockThinking || th.Text != "Both files matter." {
		t.Errorf("block 0 = %+v, want the thinking", th)
	}
	item, ok := decodeReasoning(th.Signature)
	if !ok || item.ID == "" || item.EncryptedContent != "ENCRYPTED-1" || len(item.Summary) != 1 {
		t.Errorf("signature %q decodes to %+v, %v", th.Signature, item, ok)
	}
	wantRest := []llm.Block{
		llm.Text("Reading both."),
		llm.ToolCall("call_a", "read", json.RawMessage(`{"path":"a.go"}`)),
		llm.ToolCall("call_b", "read", json.RawMessage(`{"path":"b.go"}`)),
	}
	if diff := cmp.Diff(wantRest, content[1:]); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if first.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q, want tool_use", first.StopReason)
	}
	if want := (llm.Usage{Input: 40, CacheRead: 60, Output: 12}); first.Usage != want {
		t.Errorf("usage = %+v, want %+v", first.Usage, want)
	}

	req.Messages = append(req.Messages, first.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		llm.ToolResult("call_a", false, llm.Text("package a")),
		llm.ToolResult("call_b", false, llm.Text("package b")),
	}})
	second, _ := accumulate(t, m, req)
	if second.Message.Text() != "Done." {
		t.Errorf("second reply = %q", second.Message.Text())
	}
	body := srv.Requests()[1].Body
	for path, want := range map[string]any{"store": false, "reasoning.effort": "low", "reasoning.summary": "auto"} {
		if got := field(t, body, path); got != want {
			t.Errorf("request %s = %v, want %v", path, got, want)
		}
	}
	input, _ := field(t, body, "input").([]any)
	if len(input) != 7 {
		t.Fatalf("second request has %d input items, want 7: %s", len(input), body)
	}
	assertJSON(t, input[1], fmt.Sprintf(`{"type":"reasoning","id":%q,"encrypted_content":"ENCRYPTED-1","summary":[{"type":"summary_text","text":"Both files matter."}]}`, item.ID))
	assertJSON(t, input[3], `{"type":"function_call","call_id":"call_a","name":"read","arguments":"{\"path\":\"a.go\"}"}`)
	assertJSON(t, input[6], `{"type":"function_call_output","call_id":"call_b","output":"package b"}`)
}

func TestResponsesReasoningNotRequested(t *testing.T) {
	srv, m := fakellmModel(t, `
rules:
  - repeat: true
    steps:
      - thinking: "hidden"
        text: "ok"
`, Config{API: llm.APIOpenAIResponses})
	req := userText("x")
	first, _ := accumulate(t, m, req)
	if b := first.Message.Content[0]; b.Type != llm.BlockThinking || b.Signature == "" {
		t.Fatalf("block 0 = %+v, want thinking with the item id", b)
	}
	req.Messages = append(req.Messages, first.Message, llm.UserText("y"))
	accumulate(t, m, req)
	// Without encrypted content a stateless request cannot refer to the
	// item, so it is left out rather than rejected by the server.
	if body := string(srv.Requests()[1].Body); strings.Contains(body, `"reasoning"`) || strings.Contains(body, "include") {
		t.Errorf("second request sends reasoning it cannot: %s", body)
	}
}

func TestResponsesRedactedReasoning(t *testing.T) {
	_, m := fakellmModel(t, `
rules:
  - steps:
      - redacted_thinking: "OPAQUE"
        text: "ok"
`, Config{API: llm.APIOpenAIResponses, Reasoning: true})
	resp, events := accumulate(t, m, userText("x"))
	b := resp.Message.Content[0]
	item, ok := decodeReasoning(b.Signature)
	if b.Type != llm.BlockThinking || b.Text != "" || !ok || item.EncryptedContent != "OPAQUE" {
		t.Errorf("block 0 = %+v (events %v), want an empty thinking block holding the encrypted item", b, eventTypes(events))
	}
}

func TestResponsesStopReasons(t *testing.T) {
	tests := []struct {
		stop string
		want llm.StopReason
	}{
		{"end_turn", llm.StopEndTurn},
		{"max_tokens", llm.StopMaxTokens},
		{"content_filter", llm.StopRefusal},
	}
	for _, tt := range tests {
		t.Run(tt.stop, func(t *testing.T) {
			_, m := fakellmModel(t, fmt.Sprintf(`
rules:
  - steps:
      - text: "partial"
        stop_reason: %s
`, tt.stop), Config{API: llm.APIOpenAIResponses})
			resp, _ := accumulate(t, m, userText("x"))
			if resp.StopReason != tt.want {
				t.Errorf("stop = %q, want %q", resp.StopReason, tt.want)
			}
		})
	}
}

// ev renders a Responses event as the "event:"/"data:" block sseReply
// writes.
func ev(typ, fields string) string {
	data := fmt.Sprintf(`{"type":%q`, typ)
	if fields != "" {
		data += "," + fields
	}
	return fmt.Sprintf("event: %s\ndata: %s}", typ, data)
}

const completed = `"response":{"id":"resp_1","object":"response","status":"completed","output":[],"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":25},"output_tokens":9,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":109}}`

// TestResponsesEvents replays event sequences fakellm does not produce.
func TestResponsesEvents(t *testing.T) {
	tests := []struct {
		name    string
		events  []string
		want    []llm.Block
		stop    llm.StopReason
		errKind llm.ErrorKind
		errMsg  string
	}{{
		name: "SummaryPartsAndDoneOnlyContent",
		events: []string{
			ev("response.output_item.added", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`),
			ev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"First."`),
			ev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"Second."`),
			ev("response.output_item.done", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","encrypted_content":"E","summary":[{"type":"summary_text","text":"First."},{"type":"summary_text","text":"Second."}]}`),
			ev("response.output_item.added", `"output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}`),
			ev("response.output_item.done", `"output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Only in done.","annotations":[]}]}`),
			ev("response.output_item.added", `"output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"now","arguments":""}`),
			ev("response.output_item.done", `"output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"now","arguments":""}`),
			ev("response.completed", completed),
		},
		want: []llm.Block{
			llm.Thinking("First.\n\nSecond.", reasoningItem{ID: "rs_1", EncryptedContent: "E", Summary: []string{"First.", "Second."}}.encode()),
			llm.Text("Only in done."),
			llm.ToolCall("call_1", "now", json.RawMessage(`{}`)),
		},
		stop: llm.StopToolUse,
	}, {
		name: "Refusal",
		events: []string{
			ev("response.refusal.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"No."`),
			ev("response.completed", completed),
		},
		want: []llm.Block{llm.Text("No.")},
		stop: llm.StopRefusal,
	}, {
		name: "InvalidArguments",
		events: []string{
			ev("response.output_item.added", `"output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":""}`),
			ev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"{bad"`),
			ev("response.output_item.done", `"output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":"{bad"}`),
			ev("response.completed", completed),
		},
		errKind: llm.Truncated,
	}, {
		name: "Failed",
		events: []string{
			ev("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"`),
			ev("response.failed", `"response":{"id":"resp_1","status":"failed","error":{"code":"rate_limit_exceeded","message":"Too many requests."},"output":[]}`),
		},
		errKind: llm.RateLimited,
		errMsg:  "Too many requests.",
	}, {
		name:    "ErrorEvent",
		events:  []string{ev("error", `"code":"context_length_exceeded","message":"Your input exceeds the context window of this model.","param":"input"`)},
		errKind: llm.ContextTooLong,
		errMsg:  "Your input exceeds the context window of this model.",
	}, {
		name:    "NoTerminalEvent",
		events:  []string{ev("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"`)},
		errKind: llm.Truncated,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, sseReply(tt.events...))
			m := srv.model(t, Config{API: llm.APIOpenAIResponses})
			if tt.errKind != "" {
				events, err := collect(t, m.Stream(context.Background(), userText("x")))
				if !errors.Is(err, tt.errKind) {
					t.Fatalf("error = %v after %v, want kind %q", err, eventTypes(events), tt.errKind)
				}
				var e *llm.Error
				if errors.As(err, &e) && tt.errMsg != "" && e.Message != tt.errMsg {
					t.Errorf("message = %q, want %q", e.Message, tt.errMsg)
				}
				return
			}
			resp, _ := accumulate(t, m, userText("x"))
			if diff := cmp.Diff(tt.want, resp.Message.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if resp.StopReason != tt.stop {
				t.Errorf("stop = %q, want %q", resp.StopReason, tt.stop)
			}
			if want := (llm.Usage{Input: 75, CacheRead: 25, Output: 9}); resp.Usage != want {
				t.Errorf("usage = %+v, want %+v", resp.Usage, want)
			}
		})
	}
}
