package fakellm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const goodYAML = `
# A little of everything.
rules:
  - name: weather
    model: "claude-*"
    api: anthropic
    match: ["get_weather", "Paris"]
    steps:
      - thinking: I should call the tool.
        signature: sig-1
        tool_calls:
          - id: toolu_1
            name: get_weather
            arguments: {city: Paris, days: 2}
      - text: It is sunny.
        chunk: 4
        delay: 250ms
        usage: {input: 10, output: 3, cache_read: 7, cache_write: 1}
  - name: flaky
    steps:
      - fault: {status: 429, retry_after: 1.5, message: slow down}
      - fault: {cut_after: 3}
        text: partial
      - redacted_thinking: abc
        text: ok
        stop_reason: length
    repeat: true
`

var goodScript = &Script{Rules: []Rule{{
	Name:  "weather",
	Model: "claude-*",
	API:   "anthropic",
	Match: []string{"get_weather", "Paris"},
	Steps: []Step{{
		Thinking:  "I should call the tool.",
		Signature: "sig-1",
		ToolCalls: []ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: map[string]any{"city": "Paris", "days": 2.0}}},
	}, {
		Text:  "It is sunny.",
		Chunk: 4,
		Delay: Duration(250 * time.Millisecond),
		Usage: &Usage{Input: 10, Output: 3, CacheRead: 7, CacheWrite: 1},
	}},
}, {
	Name: "flaky",
	Steps: []Step{
		{Fault: &Fault{Status: 429, RetryAfter: Duration(1500 * time.Millisecond), Message: "slow down"}},
		{Fault: &Fault{CutAfter: 3}, Text: "partial"},
		{RedactedThinking: "abc", Text: "ok", StopReason: "length"},
	},
	Repeat: true,
}}}

// normalize makes decoded tool arguments comparable whatever number types
// the decoder chose.
func normalize(t *testing.T, s *Script) *Script {
	t.Helper()
	for i := range s.Rules {
		for j := range s.Rules[i].Steps {
			for k, tc := range s.Rules[i].Steps[j].ToolCalls {
				var v any
				if err := json.Unmarshal([]byte(mustArgs(t, tc.Arguments)), &v); err != nil {
					t.Fatal(err)
				}
				s.Rules[i].Steps[j].ToolCalls[k].Arguments = v
			}
		}
	}
	return s
}

func mustArgs(t *testing.T, a any) string {
	t.Helper()
	s, err := argumentsJSON(a)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseScriptYAML(t *testing.T) {
	got, err := ParseScript("good.yaml", []byte(goodYAML))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(goodScript, normalize(t, got)); diff != "" {
		t.Errorf("script (-want +got):\n%s", diff)
	}
}

func TestParseScriptJSON(t *testing.T) {
	// The same script as JSON, as encoding/json writes it.
	data, err := json.MarshalIndent(goodScript, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseScript("good.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if diff := cmp.Diff(goodScript, normalize(t, got)); diff != "" {
		t.Errorf("script (-want +got):\n%s", diff)
	}
	// And back through encoding/json, for Go callers that store scripts.
	var again Script
	if err := json.Unmarshal(data, &again); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(goodScript, normalize(t, &again)); diff != "" {
		t.Errorf("json round trip (-want +got):\n%s", diff)
	}
}

// JSON numbers keep JSON's meaning in tool arguments, where YAML would
// read 1e3 as a string and round big integers.
func TestParseScriptJSONNumbers(t *testing.T) {
	s, err := ParseScript("n.json", []byte(`{"rules": [{"steps": [{"tool_calls": [{"name": "f", "arguments": {"a": 1e3, "b": 12345678901234567890, "c": "1e3"}}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":1e3,"b":12345678901234567890,"c":"1e3"}`
	if got := mustArgs(t, s.Rules[0].Steps[0].ToolCalls[0].Arguments); got != want {
		t.Errorf("arguments %s, want %s", got, want)
	}
}

func TestLoadScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(goodYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScript(path); err != nil {
		t.Fatal(err)
	}
	_, err := LoadScript(filepath.Join(t.TempDir(), "missing.yaml"))
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("LoadScript of a missing file: %v", err)
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // substrings of the error
	}{{
		name: "unknown key",
		src:  "rules:\n  - steps:\n      - text: hi\n        bogus: 1\n",
		want: []string{"s.yaml:4:9: ", `unknown field "bogus"`},
	}, {
		name: "unknown key in json",
		src:  `{"rules": [{"steps": [{"text": "x", "tool_call": []}]}]}`,
		want: []string{"s.yaml:1:", `unknown field "tool_call"`},
	}, {
		name: "wrong type",
		src:  "rules:\n  - steps:\n      - chunk: many\n",
		want: []string{"s.yaml:3:16: chunk: want an integer, got a string"},
	}, {
		name: "bad duration",
		src:  "rules:\n  - steps:\n      - text: hi\n        delay: soon\n",
		want: []string{"s.yaml:4:16: delay: ", `invalid duration "soon"`},
	}, {
		name: "syntax",
		src:  "rules: [\n",
		want: []string{"s.yaml:1:"},
	}, {
		name: "empty",
		src:  "",
		want: []string{"s.yaml: script has no rules"},
	}, {
		name: "empty step",
		src:  "rules:\n  - steps:\n      - text: hi\n      - chunk: 3\n",
		want: []string{"s.yaml:4:", "rules[0].steps[1]: a step needs content"},
	}, {
		name: "no steps",
		src:  "rules:\n  - name: x\n",
		want: []string{"s.yaml:2:", "rules[0]: a rule needs at least one step"},
	}, {
		name: "bad api and glob",
		src:  "rules:\n  - {api: gemini, model: '[', steps: [{text: x}]}\n",
		want: []string{`rules[0].api: unknown api "gemini"`, "rules[0].model: bad glob"},
	}, {
		name: "status fault with content",
		src:  "rules:\n  - steps: [{text: x, fault: {status: 429}}]\n",
		want: []string{"rules[0].steps[0]: a status fault replaces the reply"},
	}, {
		name: "two fault kinds",
		src:  "rules:\n  - steps: [{fault: {stall: true, malformed: true}}]\n",
		want: []string{"rules[0].steps[0].fault: a fault needs exactly one of", "(has 2)"},
	}, {
		name: "empty fault",
		src:  "rules:\n  - steps: [{fault: {}}]\n",
		want: []string{"(has 0)"},
	}, {
		name: "not an error status",
		src:  "rules:\n  - steps: [{fault: {status: 200}}]\n",
		want: []string{"rules[0].steps[0].fault.status: status 200 is not an HTTP error"},
	}, {
		name: "retry after without status",
		src:  "rules:\n  - steps: [{fault: {stall: true, retry_after: 1}}]\n",
		want: []string{"retry_after and message go with status"},
	}, {
		name: "tool call without name",
		src:  "rules:\n  - steps:\n    - text: x\n    - tool_calls:\n        - arguments: {a: 1}\n",
		want: []string{"s.yaml:5:", "rules[0].steps[1].tool_calls[0]: a tool call needs a name"},
	}, {
		name: "arguments not an object",
		src:  "rules:\n  - steps: [{tool_calls: [{name: f, arguments: [1, 2]}]}]\n",
		want: []string{"rules[0].steps[0].tool_calls[0].arguments: arguments must be an object"},
	}, {
		name: "arguments string not json",
		src:  "rules:\n  - steps: [{tool_calls: [{name: f, arguments: 'city=Paris'}]}]\n",
		want: []string{"arguments string must hold a JSON object"},
	}, {
		name: "duplicate tool call ids",
		src:  "rules:\n  - steps: [{tool_calls: [{id: a, name: f}, {id: a, name: g}]}]\n",
		want: []string{`rules[0].steps[0].tool_calls[1].id: duplicate id "a"`},
	}, {
		name: "unknown stop reason",
		src:  "rules:\n  - steps: [{text: x, stop_reason: tired}]\n",
		want: []string{`unknown stop reason "tired"`, "end_turn"},
	}, {
		name: "signature without thinking",
		src:  "rules:\n  - steps: [{text: x, signature: s}]\n",
		want: []string{"rules[0].steps[0].signature: a signature goes with thinking"},
	}, {
		name: "negative numbers",
		src:  "rules:\n  - steps: [{text: x, chunk: -1, delay: -1s, usage: {input: -1}}]\n",
		want: []string{"negative chunk size", "delay: negative duration", "usage: negative token count"},
	}, {
		name: "several rules",
		src:  "rules:\n  - steps: [{text: x}]\n  - steps: [{text: y}, {}]\n",
		want: []string{"s.yaml:3:", "rules[1].steps[1]"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScript("s.yaml", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		yaml string
		want time.Duration
	}{
		{"250ms", 250 * time.Millisecond},
		{"2s", 2 * time.Second},
		{"2", 2 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{`"3"`, 3 * time.Second},
		{"1m30s", 90 * time.Second},
	}
	for _, tt := range tests {
		s, err := ParseScript("d.yaml", []byte("rules: [{steps: [{text: x, delay: "+tt.yaml+"}]}]"))
		if err != nil {
			t.Errorf("%s: %v", tt.yaml, err)
			continue
		}
		if got := time.Duration(s.Rules[0].Steps[0].Delay); got != tt.want {
			t.Errorf("%s = %v, want %v", tt.yaml, got, tt.want)
		}
	}
	var d Duration
	if err := json.Unmarshal([]byte(`"1.5s"`), &d); err != nil || d != Duration(1500*time.Millisecond) {
		t.Errorf(`json "1.5s" = %v, %v`, d, err)
	}
	if err := json.Unmarshal([]byte(`0.25`), &d); err != nil || d != Duration(250*time.Millisecond) {
		t.Errorf("json 0.25 = %v, %v", d, err)
	}
	if err := json.Unmarshal([]byte(`true`), &d); err == nil {
		t.Error("json true is a duration")
	}
	if b, _ := json.Marshal(Duration(2 * time.Second)); string(b) != `"2s"` {
		t.Errorf("marshal 2s = %s", b)
	}
}

func TestMustParseNamesTheTest(t *testing.T) {
	_, err := ParseScript(t.Name(), []byte("rules: [{steps: [{}]}]"))
	if err == nil || !strings.HasPrefix(err.Error(), t.Name()+":1:") {
		t.Errorf("error %v", err)
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add([]byte(goodYAML))
	f.Add([]byte(`{"rules": [{"steps": [{"text": "x", "delay": 1.5}]}]}`))
	f.Add([]byte("rules:\n  - steps:\n      - tool_calls: [{name: f, arguments: '{\"a\": 1}'}]\n"))
	f.Add([]byte("rules: [{steps: [{fault: {status: 529, retry_after: 2s}}]}]"))
	f.Add([]byte("rules: [{model: '[', steps: [{}]}]"))
	f.Add([]byte("rules: &a [*a]"))
	f.Add([]byte("- - - -"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Errorf("parsed script fails validation: %v", err)
		}
		// Every valid script can be served.
		for i := range s.Rules {
			for j := range s.Rules[i].Steps {
				rp := newReply(&s.Rules[i].Steps[j], 1, &wireRequest{model: "m"}, time.Unix(0, 0))
				for _, d := range []dialect{anthropicAPI{}, chatAPI{}, responsesAPI{}} {
					marshal(d.body(rp))
					d.events(rp)
				}
			}
		}
	})
}
