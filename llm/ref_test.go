package llm_test

import (
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want llm.Ref
	}{
		{"anthropic/claude-sonnet-4-5", llm.Ref{Provider: "anthropic", Model: "claude-sonnet-4-5"}},
		{"anthropic/claude-sonnet-4-5:high", llm.Ref{Provider: "anthropic", Model: "claude-sonnet-4-5", Thinking: llm.ThinkingHigh}},
		{"gpt-5:off", llm.Ref{Model: "gpt-5", Thinking: llm.ThinkingOff}},
		{"gpt-5", llm.Ref{Model: "gpt-5"}},
		{"ollama/llama3:8b", llm.Ref{Provider: "ollama", Model: "llama3:8b"}},
		{"ollama/llama3:8b:low", llm.Ref{Provider: "ollama", Model: "llama3:8b", Thinking: llm.ThinkingLow}},
		{"openrouter/anthropic/claude-x:xhigh", llm.Ref{Provider: "openrouter", Model: "anthropic/claude-x", Thinking: llm.ThinkingXHigh}},
		{"  local/m  ", llm.Ref{Provider: "local", Model: "m"}},
	}
	for _, tt := range tests {
		got, err := llm.ParseRef(tt.in)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseRef(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		again, err := llm.ParseRef(got.String())
		if err != nil || again != got {
			t.Errorf("ParseRef(String()) of %+v = %+v, %v", got, again, err)
		}
	}
}

func TestParseRefErrors(t *testing.T) {
	for _, in := range []string{"", "   ", "/model", "provider/", ":high", "p/:low"} {
		if r, err := llm.ParseRef(in); err == nil {
			t.Errorf("ParseRef(%q) = %+v, want an error", in, r)
		}
	}
}

func TestParseThinkingLevel(t *testing.T) {
	for _, l := range llm.ThinkingLevels {
		got, err := llm.ParseThinkingLevel(string(l))
		if err != nil || got != l {
			t.Errorf("ParseThinkingLevel(%q) = %q, %v", l, got, err)
		}
	}
	if _, err := llm.ParseThinkingLevel("max"); err == nil {
		t.Error("ParseThinkingLevel(max): no error")
	}
	if llm.ThinkingOff.Enabled() || llm.ThinkingLevel("").Enabled() || !llm.ThinkingLow.Enabled() {
		t.Error("Enabled is wrong")
	}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"anthropic/claude:high", "a/b/c:d", "x", ":", "/", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := llm.ParseRef(s)
		if err != nil {
			return
		}
		if r.Model == "" {
			t.Fatalf("ParseRef(%q) gave an empty model", s)
		}
		again, err := llm.ParseRef(r.String())
		if err != nil {
			t.Fatalf("ParseRef(%q).String() = %q does not parse: %v", s, r.String(), err)
		}
		if again != r {
			t.Fatalf("round trip of %q: %+v != %+v", s, again, r)
		}
	})
}
