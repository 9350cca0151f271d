package sidecar_test

import (
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/advisor/hosttest"
	"github.com/vigil-dev/vigil/internal/sidecar"
)

// hostAgent is an agent watched through its hooks, as the conformance
// suite drives it: its steps are the entries the sidecar follows, and
// what reaches it is what a tool boundary's and a prompt's hooks answer.
type hostAgent struct {
	h  *sidecar.Host
	mu sync.Mutex
	n  int
}

func (a *hostAgent) Host() advisor.Host { return a.h }

func (a *hostAgent) Step(_ *testing.T, text string) int {
	a.mu.Lock()
	a.n++
	n := a.n
	a.mu.Unlock()
	return a.h.Append(hosttest.Step(n, text)...)
}

func (a *hostAgent) Delivered(*testing.T) string { return a.h.Boundary() + a.h.Prompt() }

// TestHostContract runs the advisor.Host conformance suite against the
// sidecar's host.
func TestHostContract(t *testing.T) {
	hosttest.Run(t, func(*testing.T) hosttest.Agent { return &hostAgent{h: sidecar.NewHost()} })
}
