package fleet

import (
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/advisor/hosttest"
)

// workerAgent is a session a worker owns, as the conformance suite
// drives it: its steps are the entries the worker receives, and what
// reaches the agent is the notes the worker publishes, but the withheld
// ones (the agent shows those to the user only).
type workerAgent struct {
	h  *host
	mu sync.Mutex
	n  int
}

func (a *workerAgent) Host() advisor.Host { return a.h }

func (a *workerAgent) Step(_ *testing.T, text string) int {
	a.mu.Lock()
	a.n++
	n := a.n
	a.mu.Unlock()
	return a.h.Append(hosttest.Step(n, text)...)
}

func (a *workerAgent) Delivered(*testing.T) string {
	var b strings.Builder
	for _, n := range a.h.take() {
		if n.Kind != KindWithhold {
			b.WriteString(advisor.FormatAdvisories([]advisor.Advice{n.Advice}))
		}
	}
	return b.String()
}

// TestHostContract runs the advisor.Host conformance suite against a
// worker's host of a session.
func TestHostContract(t *testing.T) {
	hosttest.Run(t, func(*testing.T) hosttest.Agent { return &workerAgent{h: &host{}} })
}
