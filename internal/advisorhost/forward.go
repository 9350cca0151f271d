package advisorhost

import (
	"context"
	"sync"

	"github.com/vigil-dev/vigil/agent"
)

// ForwardHook is a hook whose target is set once the agent exists (the
// agent takes its hooks at construction, and the host needs the agent),
// and changes when the advisor is turned on or off. Its zero value
// forwards to nothing.
type ForwardHook struct {
	mu sync.Mutex
	h  agent.Hook
}

// Set makes h the target; nil forwards to nothing.
func (f *ForwardHook) Set(h agent.Hook) {
	f.mu.Lock()
	f.h = h
	f.mu.Unlock()
}

// Boundary implements [agent.Hook]: the target's, or nothing.
func (f *ForwardHook) Boundary(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
	f.mu.Lock()
	h := f.h
	f.mu.Unlock()
	if h == nil {
		return nil
	}
	return h.Boundary(ctx, b)
}
