package fakellm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStopReasons(t *testing.T) {
	tests := []struct {
		reason                       string
		anthropic, chat, status, why string
	}{
		{"", "end_turn", "stop", "completed", ""},
		{"end_turn", "end_turn", "stop", "completed", ""},
		{"stop", "end_turn", "stop", "completed", ""},
		{"max_tokens", "max_tokens", "length", "incomplete", "max_output_tokens"},
		{"length", "max_tokens", "length", "incomplete", "max_output_tokens"},
		{"tool_use", "tool_use", "tool_calls", "completed", ""},
		{"tool_calls", "tool_use", "tool_calls", "completed", ""},
		{"stop_sequence", "stop_sequence", "stop", "completed", ""},
		{"refusal", "refusal", "content_filter", "incomplete", "content_filter"},
		{"content_filter", "refusal", "content_filter", "incomplete", "content_filter"},
		{"pause_turn", "pause_turn", "stop", "completed", ""},
		{"model_context_window_exceeded", "model_context_window_exceeded", "length", "incomplete", "max_output_tokens"},
	}
	if len(tests) != len(stopReasons) {
		t.Errorf("%d cases for %d stop reasons", len(tests), len(stopReasons))
	}
	for _, tt := range tests {
		k := stopReasons[tt.reason]
		status, details := responsesStatus(k)
		why := ""
		if details != nil {
			why = string(marshal(details))
		}
		if anthropicStop(k) != tt.anthropic || chatFinish(k) != tt.chat || status != tt.status || !strings.Contains(why, tt.why) {
			t.Errorf("%q: got %s, %s, %s %s", tt.reason, anthropicStop(k), chatFinish(k), status, why)
		}
	}
}

func TestSplitUTF8(t *testing.T) {
	tests := []struct {
		s    string
		size int
		want []string
	}{
		{"", 8, nil},
		{"abcdefgh", 3, []string{"abc", "def", "gh"}},
		{"héllo", 2, []string{"h", "é", "ll", "o"}},
		{"👋👋", 2, []string{"👋", "👋"}}, // a piece holds at least one rune
		{"a👋b", 4, []string{"a", "👋", "b"}},
	}
	for _, tt := range tests {
		if got := splitUTF8(tt.s, tt.size); !cmp.Equal(got, tt.want) {
			t.Errorf("splitUTF8(%q, %d) = %q, want %q", tt.s, tt.size, got, tt.want)
		}
	}
}

func TestSharedParts(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"x 1\n", "x 1\n", 4},
		{"x 1\n", "x 1\ny 2\n", 4},
		{"x 1\ny 2\n", "x 1\n", 4},
		{"x 1\ny 2\n", "x 1\ny 3\n", 4}, // the differing part is not shared
		{"x 12\n", "x 13\n", 0},
	}
	for _, tt := range tests {
		if got := sharedParts(tt.a, tt.b); got != tt.want {
			t.Errorf("sharedParts(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPromptCacheBounds(t *testing.T) {
	var c promptCache
	for i := range historyModels + 5 {
		c.cachedPrefix(APIChat, strings.Repeat("m", i+1), "p\n")
	}
	if len(c.byKey) != historyModels || len(c.keys) != historyModels {
		t.Errorf("%d models kept, want %d", len(c.byKey), historyModels)
	}
	for range historyPerModel + 5 {
		c.cachedPrefix(APIChat, "one", "p\n")
	}
	if n := len(c.byKey[APIChat+"\x00one"]); n != historyPerModel {
		t.Errorf("%d prompts kept, want %d", n, historyPerModel)
	}
}

func TestCanonicalJSON(t *testing.T) {
	got := canonicalJSON([]byte(`{"role": "user", "content": [{"type": "text", "text": "<hi> & 1.50", "cache_control": {"type": "ephemeral"}}]}`))
	want := `{"content":[{"text":"<hi> & 1.50","type":"text"}],"role":"user"}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
