package llmtest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
)

// ThinkingCase is one thinking map the ThinkingLevels case checks, with
// what every level must put in the request.
type ThinkingCase struct {
	// Name names the subtest, such as "Adaptive".
	Name string
	// Map is given to [Harness.NewThinking].
	Map llm.ThinkingMap
	// Fields are the top-level request fields compared, such as
	// "thinking", "output_config" and "max_tokens".
	Fields []string
	// Want holds, for the empty level and each of [llm.ThinkingLevels],
	// the JSON of each field the request must carry; a field of Fields it
	// does not list must be absent. Every level needs an entry, so that a
	// case checks them all.
	Want map[llm.ThinkingLevel]map[string]string
}

// thinkingLevels are the levels a ThinkingCase covers: none, then each.
func thinkingLevels() []llm.ThinkingLevel {
	return append([]llm.ThinkingLevel{""}, llm.ThinkingLevels...)
}

// testThinkingLevels sends one request per level through an adapter built
// with each case's map and compares the fields that carry thinking with
// the case's, exactly. fakellm answers each: it refuses thinking settings
// no model accepts, so a request the real API would reject fails here too.
func testThinkingLevels(t *testing.T, h Harness) {
	if h.NewThinking == nil || len(h.Thinking) == 0 {
		t.Skip("the harness gives no NewThinking and thinking cases")
	}
	for _, c := range h.Thinking {
		t.Run(c.Name, func(t *testing.T) {
			srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - model: conformance-model
    repeat: true
    steps:
      - text: "ok"
`))
			m := h.NewThinking(t, srv.URL(), testModel, c.Map)
			for i, level := range thinkingLevels() {
				want, ok := c.Want[level]
				if !ok {
					t.Errorf("level %q: the case says nothing of it", level)
					continue
				}
				req := ask("think about it")
				req.Thinking = level
				if _, err := llm.Accumulate(m.Stream(context.Background(), req)); err != nil {
					t.Errorf("level %q: %v", level, err)
					continue
				}
				var body map[string]json.RawMessage
				if err := json.Unmarshal(srv.Requests()[i].Body, &body); err != nil {
					t.Fatalf("level %q: request body: %v", level, err)
				}
				for _, f := range c.Fields {
					checkField(t, level, f, body[f], want[f])
				}
				for f := range want {
					if !slices.Contains(c.Fields, f) {
						t.Errorf("level %q: field %s is not in the case's Fields", level, f)
					}
				}
			}
		})
	}
}

// checkField compares one request field with its expected JSON, "" for
// absent.
func checkField(t *testing.T, level llm.ThinkingLevel, field string, got json.RawMessage, want string) {
	t.Helper()
	if want == "" {
		if got != nil {
			t.Errorf("level %q: %s = %s, want it absent", level, field, got)
		}
		return
	}
	if got == nil {
		t.Errorf("level %q: %s absent, want %s", level, field, want)
		return
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("level %q: %s is not JSON: %s", level, field, got)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		panic("llmtest: bad expected JSON for " + field + ": " + want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("level %q: %s = %s, want %s", level, field, gb, wb)
	}
}
