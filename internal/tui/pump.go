package tui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/vigil-dev/vigil/agent"
)

// eventsMsg carries the agent events that arrived since the last one, in
// order. The UI takes them in batches so that a fast stream (thousands of
// deltas a second) costs one update and one frame per batch, not per
// delta.
type eventsMsg []agent.Event

// pump moves agent events to the program. push never blocks the agent:
// it appends to a queue; run hands the whole queue to the program each
// time the program has taken the previous batch.
type pump struct {
	send func(tea.Msg)

	mu      sync.Mutex
	queue   []agent.Event
	stopped bool
	wake    chan struct{}
	done    chan struct{}
}

func newPump(send func(tea.Msg)) *pump {
	return &pump{send: send, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// push queues ev; after stop it drops it.
func (p *pump) push(ev agent.Event) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.queue = append(p.queue, ev)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run sends batches until ctx ends or stop is called.
func (p *pump) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.done:
			return
		case <-p.wake:
		}
		p.mu.Lock()
		batch := p.queue
		p.queue = nil
		p.mu.Unlock()
		if len(batch) > 0 {
			p.send(eventsMsg(batch)) // blocks until the program takes it
		}
	}
}

// stop drops every later event and ends run.
func (p *pump) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		p.stopped = true
		close(p.done)
	}
}
