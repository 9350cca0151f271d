package advisorhost_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/advisor/hosttest"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/session"
)

// agentUnderTest is vigil's own agent, as the conformance suite drives
// it: its steps are entries written to its session, and what reaches it
// is the advisor's entries its model reads (asides and steers written
// at a step boundary of a run, cards at once), seen after a run.
type agentUnderTest struct {
	w    *world
	mu   sync.Mutex
	n    int
	seen int
}

func (a *agentUnderTest) Host() advisor.Host { return a.w.host }

func (a *agentUnderTest) Step(t *testing.T, text string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	for _, e := range hosttest.Step(a.n, text) {
		if _, err := a.w.sess.Append(e.Body); err != nil {
			t.Errorf("append a step: %v", err)
		}
	}
	return a.w.sess.Len()
}

// Delivered runs the agent once (a tool call, then an answer), so that
// its boundary takes what waits, then reads the advisor's entries in its
// model's context written since the last call.
func (a *agentUnderTest) Delivered(t *testing.T) string {
	if err := a.w.ag.Prompt(t.Context(), "go on"); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	entries, next := a.w.sess.Since(a.seen)
	a.seen = next
	var b strings.Builder
	for _, e := range entries {
		if c, ok := e.Body.(*session.Custom); ok && c.CustomType == advisorhost.CustomType && c.InContext {
			for _, bl := range c.Content {
				b.WriteString(bl.Text + "\n")
			}
		}
	}
	return b.String()
}

// TestHostContract runs the advisor.Host conformance suite against the
// host over vigil's own agent.
func TestHostContract(t *testing.T) {
	hosttest.Run(t, func(t *testing.T) hosttest.Agent {
		return &agentUnderTest{w: newWorld(t, `
rules:
  - repeat: true
    steps:
      - tool_calls: [{name: bash, arguments: {command: "true"}}]
      - text: "done"
`)}
	})
}
