package advisor

import (
	"encoding/json"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// TestRuntimeFollowsTheAgentsThinking: with FollowThinking, each review
// asks for the thinking level the agent last switched to; without it, the
// advisor model's own (none here).
func TestRuntimeFollowsTheAgentsThinking(t *testing.T) {
	const script = `
rules:
  - repeat: true
    steps:
      - text: Nothing to add.
`
	thinkingOf := func(t *testing.T, body []byte) string {
		var req struct {
			Thinking map[string]any `json:"thinking"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		if req.Thinking == nil {
			return "none"
		}
		return req.Thinking["type"].(string)
	}
	for _, follow := range []bool{true, false} {
		srv, m := fakeServer(t, script)
		h := startRuntime(t, m, func(o *Options) { o.FollowThinking = follow })
		change := func(level llm.ThinkingLevel) {
			h.host.mu.Lock()
			h.host.entries = append(h.host.entries, session.Entry{ID: "mc" + string(level), Body: &session.ModelChange{Model: llm.Ref{Provider: "anthropic", Model: "m"}, Thinking: level}})
			h.host.mu.Unlock()
		}
		h.r.Notify(h.host.step("first step"))
		h.waitFor("review 1", func(s Status) bool { return s.Reviews == 1 })
		change(llm.ThinkingLevel("high"))
		h.r.Notify(h.host.step("second step"))
		h.waitFor("review 2", func(s Status) bool { return s.Reviews == 2 })
		change(llm.ThinkingLevel("off"))
		h.r.Notify(h.host.step("third step"))
		h.waitFor("review 3", func(s Status) bool { return s.Reviews == 3 })
		reqs := srv.Requests()
		got := []string{thinkingOf(t, reqs[0].Body), thinkingOf(t, reqs[1].Body), thinkingOf(t, reqs[2].Body)}
		want := []string{"none", "enabled", "none"} // "off" sends no thinking at all
		if !follow {
			want = []string{"none", "none", "none"}
		}
		if got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("follow %v: the reviews' thinking %q, want %q", follow, got, want)
		}
	}
}

// thinkingHost is a host that says the agent's thinking level, as vigil's
// own agent's does.
type thinkingHost struct {
	*fakeHost
	level llm.ThinkingLevel
}

func (h thinkingHost) Thinking() llm.ThinkingLevel { return h.level }

// TestRuntimeFollowsTheHostsThinking: a host that says the agent's level
// is followed without any model change in the session.
func TestRuntimeFollowsTheHostsThinking(t *testing.T) {
	srv, m := fakeServer(t, "rules:\n  - repeat: true\n    steps:\n      - text: Nothing to add.\n")
	host := &fakeHost{}
	h := startRuntime(t, m, func(o *Options) {
		o.FollowThinking = true
		o.Host = thinkingHost{fakeHost: host, level: "high"}
	})
	h.host = host
	h.r.Notify(host.step("a step"))
	h.waitFor("a review", func(s Status) bool { return s.Reviews == 1 })
	var req struct {
		Thinking map[string]any `json:"thinking"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &req); err != nil {
		t.Fatal(err)
	}
	if req.Thinking == nil || req.Thinking["type"] != "enabled" {
		t.Errorf("the review's thinking is %v, want the agent's (high: enabled)", req.Thinking)
	}
}
