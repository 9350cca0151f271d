package advisor

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The periodic mode pulled forward: with [PeriodicOptions.Detector] set,
// the runtime reads the agent's new entries after each call settles and
// runs the detector over them. A finding or a signal ([Signaler]) makes a
// review due at once, whatever the triggers say, and the review's prompt
// says what the rules saw. The detector reads in the runtime's goroutine,
// never in Notify.

// prime runs the detector over what the agent has done so far, so that it
// knows the run's history (a failure seen before, a check already run),
// and discards what it finds there: a review is pulled forward by what
// happens from now on, not by what an attached sidecar finds in a long
// session's past.
func (p *Periodic) prime(ctx context.Context) {
	d := p.opts.Detector
	if d == nil {
		return
	}
	view, cursor, err := p.opts.Host.View(ctx)
	if err != nil {
		p.logf("advisor: the rules cannot read the transcript: %v", err)
		return
	}
	d.Observe(view)
	if s, ok := d.(Signaler); ok {
		s.Signals()
	}
	p.mu.Lock()
	p.cursor = cursor
	p.mu.Unlock()
}

// look reads the entries appended since the last look and runs the
// detector over them; what it finds pulls a review forward.
func (p *Periodic) look(ctx context.Context) {
	d := p.opts.Detector
	p.mu.Lock()
	if d == nil || !p.scan {
		p.mu.Unlock()
		return
	}
	p.scan = false
	cursor, rewritten := p.cursor, p.rewritten
	p.rewritten = false
	p.mu.Unlock()
	if rewritten {
		// The history the detector knew was replaced: it starts over from
		// what the agent sees now, without pulling on it.
		d.Reset()
		p.prime(ctx)
		return
	}
	entries, next, err := p.opts.Host.Since(ctx, cursor)
	if err != nil {
		p.logf("advisor: the rules cannot read the transcript: %v", err)
		return
	}
	var seen []string
	for _, n := range d.Observe(entries) {
		seen = append(seen, fmt.Sprintf("[%s] %s", n.Severity, n.Note))
	}
	if s, ok := d.(Signaler); ok {
		seen = append(seen, s.Signals()...)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cursor = next
	if len(seen) == 0 {
		return
	}
	if !p.pulled {
		p.logf("advisor: the rules saw %s; a review is due now", clip(seen[0], 200))
	}
	p.pulled = true
	p.seen = append(p.seen, seen...)
	p.armLocked(time.Now())
}

// seenText is what the rules saw since the last settled review, for the
// review's prompt: "" when nothing pulled it forward.
func seenText(seen []string) string {
	if len(seen) == 0 {
		return ""
	}
	var b strings.Builder
	for _, s := range seen {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	return fenced("What the rules saw", "This review comes early because vigil's zero-token rules saw this. It may be nothing: judge it against the conversation.", b.String())
}
