package advisor

import (
	"encoding/json"
	"testing"
)

// The periodic mode's values cross the same serialisable boundary as the
// rest of Host's.
func TestPeriodicHostValuesAreSerialisable(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"run started", Event{Kind: EventRunStarted, Run: "run-1", Trigger: TriggerUser}, `{"kind":"run_started","run":"run-1","trigger":"user"}`},
		{"run ended", Event{Kind: EventRunEnded, Run: "run-1"}, `{"kind":"run_ended","run":"run-1"}`},
		{"nested call", Event{Kind: EventToolStarted, Call: CallKey{Source: "subagent:t1", ID: "call_1"}, Parent: CallKey{Source: "agent", ID: "call_1"}},
			`{"kind":"tool_started","call":{"source":"subagent:t1","id":"call_1"},"parent":{"source":"agent","id":"call_1"}}`},
		{"settled", Event{Kind: EventToolSettled, Call: CallKey{ID: "x"}}, `{"kind":"tool_settled","call":{"id":"x"}}`},
		{"blocked", SteerResult{Outcome: SteerBlocked, Reason: "advisor.allowPromptInjection=false"}, `{"outcome":"blocked","reason":"advisor.allowPromptInjection=false"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}
