package openai

import (
	"bytes"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/vigil-dev/vigil/llm"
)

// FuzzReasoningSignature checks that a signature read back is the item
// written, and that reading any string never panics.
func FuzzReasoningSignature(f *testing.F) {
	f.Add("rs_1", "gAAAA==", "summary", `{"id":"rs_1"}`)
	f.Add("", "", "", "EqQBCkgIBxABGAIiQL")
	f.Fuzz(func(t *testing.T, id, enc, summary, arbitrary string) {
		decodeReasoning(arbitrary)
		if !utf8.ValidString(id) || !utf8.ValidString(enc) || !utf8.ValidString(summary) {
			return // a server's JSON strings are always valid UTF-8
		}
		want := reasoningItem{ID: id, EncryptedContent: enc}
		if summary != "" {
			want.Summary = []string{summary}
		}
		got, ok := decodeReasoning(want.encode())
		if ok != (id != "" && enc != "") {
			t.Fatalf("decode(encode(%+v)) ok = %v", want, ok)
		}
		if ok && (got.ID != want.ID || got.EncryptedContent != want.EncryptedContent || !slices.Equal(got.Summary, want.Summary)) {
			t.Fatalf("round trip = %+v, want %+v", got, want)
		}
	})
}

// accumulating is a yield that feeds an llm.Accumulator and fails t on an
// event the accumulator rejects.
func accumulating(t *testing.T) func(llm.Event, error) bool {
	var acc llm.Accumulator
	return func(ev llm.Event, err error) bool {
		if err != nil {
			t.Fatalf("yielded an error %v", err)
		}
		if err := acc.Add(ev); err != nil {
			t.Fatalf("event %+v: %v", ev, err)
		}
		return true
	}
}

// FuzzChatChunks feeds arbitrary chunks, one JSON object a line, to the
// Chat translation: whatever a server sends, every event must be one an
// accumulator accepts.
func FuzzChatChunks(f *testing.F) {
	f.Add([]byte(chunk(`{"reasoning_content":"a"}`, "") + "\n" + chunk(`{"content":"b"}`, "") + "\n" +
		chunk(`{"tool_calls":[{"index":1,"id":"x","function":{"name":"f","arguments":"{}"}}]}`, "") + "\n" +
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"[1"}}]}`, "") + "\n" + chunk(`{}`, "tool_calls") + "\n" + usageChunk))
	f.Add([]byte(chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}]}`, "") + "\n" +
		chunk(`{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"x\":1}"}}]}`, "length")))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := chatStream{yield: accumulating(t), text: -1, thinking: -1}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			var c openai.ChatCompletionChunk
			if c.UnmarshalJSON(line) != nil {
				continue
			}
			s.chunk(&c)
			if s.err != nil {
				return
			}
		}
	})
}

// FuzzResponsesEvents does the same for the Responses translation.
func FuzzResponsesEvents(f *testing.F) {
	f.Add([]byte(`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs","type":"reasoning"}}
{"type":"response.reasoning_summary_text.delta","item_id":"rs","delta":"a"}
{"type":"response.output_item.done","output_index":0,"item":{"id":"rs","type":"reasoning","encrypted_content":"E"}}
{"type":"response.output_text.delta","item_id":"m","delta":"b"}
{"type":"response.output_item.added","output_index":2,"item":{"id":"fc","type":"function_call","call_id":"c","name":"f"}}
{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"{}"}
{"type":"response.output_item.done","output_index":2,"item":{"id":"fc","type":"function_call","call_id":"c","name":"f","arguments":"{}"}}
{"type":"response.completed","response":{"status":"completed"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := responsesStream{yield: accumulating(t), m: &Model{}}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			var ev responses.ResponseStreamEventUnion
			if ev.UnmarshalJSON(line) != nil {
				continue
			}
			s.event(&ev)
			if s.err != nil || s.done {
				return
			}
		}
	})
}
