package replay

import (
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/advisor/hosttest"
	"github.com/vigil-dev/vigil/transcript"
)

// replayAgent is a recorded run replayed step by step, as the
// conformance suite drives it: what reaches the agent is the findings
// the run is scored on.
type replayAgent struct {
	h    *host
	mu   sync.Mutex
	n    int
	seen int
}

func (a *replayAgent) Host() advisor.Host { return a.h }

func (a *replayAgent) Step(_ *testing.T, text string) int {
	a.mu.Lock()
	a.n++
	n := a.n
	a.mu.Unlock()
	es := hosttest.Step(n, text)
	a.h.add(transcript.Step{N: n, Reply: es[0], Results: es[1:]})
	return a.h.len()
}

func (a *replayAgent) Delivered(*testing.T) string {
	fs := a.h.findings()
	var b strings.Builder
	for _, f := range fs[a.seen:] {
		b.WriteString(f.Message + "\n")
	}
	a.seen = len(fs)
	return b.String()
}

// TestHostContract runs the advisor.Host conformance suite against the
// host of a replayed run.
func TestHostContract(t *testing.T) {
	hosttest.Run(t, func(*testing.T) hosttest.Agent { return &replayAgent{h: &host{}} })
}
