package sidecar

// Reading the watched agent's transcript: what the follower returns goes
// to the host and, in the order it happened, to the advisor; the hooks
// wait (bounded) for the transcript to catch up with what they are about.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// Sync reads what the agent appended to its transcript since the last
// call and reports it to the advisor; at most about syncBudget of it.
func (s *Sidecar) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.syncLocked(false)
	return err
}

// syncBudget bounds the time one sync spends reading a transcript with
// much to read (a long session followed from its start, a huge line):
// the hook that asked, and the poll loop, go on, and the next sync reads
// on from there.
const syncBudget = 500 * time.Millisecond

// syncLocked reads the transcript, settling it when asked (which it does
// only once it has read to the end); more says the budget ran out first.
// The caller holds mu.
func (s *Sidecar) syncLocked(settle bool) (more bool, err error) {
	if s.follower == nil {
		return false, nil
	}
	if err := s.checkPseudo(); err != nil {
		return false, err
	}
	start := time.Now()
	for {
		b, err := s.follower.Poll()
		s.apply(b)
		if err != nil {
			return false, s.fail(err)
		}
		if !b.More {
			break
		}
		if time.Since(start) >= syncBudget {
			s.readOK()
			return true, nil
		}
	}
	if settle {
		b, err := s.follower.Settle()
		s.apply(b)
		if err != nil {
			return false, s.fail(err)
		}
	}
	s.readOK()
	return false, nil
}

// apply hands a batch to the host and the advisor, in the order things
// happened: each entry, then the marks and step ends at it. The first
// entries of a follower started anew on a changed file reset the
// advisor, which primes from them.
func (s *Sidecar) apply(b transcript.Batch) {
	if len(b.Entries) == 0 {
		return
	}
	s.touchLocked()
	var evs []at
	if s.readsAnew() {
		s.o.Host.RestartView()
		s.stats.Resets++
		evs = append(evs, at{-1, advisor.Event{Kind: advisor.EventHistoryRewritten}})
	}
	base := s.o.Host.Append(b.Entries...) - len(b.Entries)
	index := make(map[string]int, len(b.Entries))
	for i, e := range b.Entries {
		if e.ID != "" {
			index[e.ID] = i
		}
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
			if t := strings.TrimSpace(m.Message.Text()); t != "" {
				s.lastReply = t
			}
		}
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
			for _, b := range m.Message.Content {
				if b.Type == llm.BlockToolCall && b.ID != "" {
					s.sawCall(b.ID)
				}
			}
		}
	}
	var tools []at
	if s.o.Periodic != nil {
		tools = s.toolEvents(b.Entries)
	}
	for _, m := range b.Marks {
		switch m.Kind {
		case transcript.MarkCompaction:
			s.stats.Resets++
			evs = append(evs, at{m.Entry, advisor.Event{Kind: advisor.EventHistoryRewritten}})
		case transcript.MarkInterrupt:
			s.interrupted = true
			evs = append(evs, at{m.Entry, advisor.Event{Kind: advisor.EventUserInterrupted}})
		case transcript.MarkPrompt:
			s.interrupted = false
			evs = append(evs, at{m.Entry, advisor.Event{Kind: advisor.EventUserResumed}})
		}
	}
	for _, st := range b.Steps {
		last := st.Reply.ID
		if n := len(st.Results); n > 0 {
			last = st.Results[n-1].ID
		}
		i, ok := index[last]
		if !ok {
			i = len(b.Entries) - 1 // a step whose entries came in an earlier batch
		}
		s.stats.Steps++
		evs = append(evs, at{i, advisor.Event{Kind: advisor.EventStepEnded, Cursor: base + i + 1}})
	}
	evs = append(evs, tools...)
	// By position, stably: at one entry, marks before the step that ends
	// there, then the tool events, each in the order the follower gave.
	slices.SortStableFunc(evs, func(a, b at) int { return a.i - b.i })
	for _, e := range evs {
		s.o.Advisor.Notify(e.ev)
	}
}

// at is an event to report at an entry of a batch.
type at struct {
	i  int
	ev advisor.Event
}

// toolEvents are the periodic mode's tool events of a batch: a call
// starts with the reply that makes it, and settles with its result. A
// call seen while no run is going (the sidecar started mid-run) starts
// one. The caller holds mu.
func (s *Sidecar) toolEvents(entries []session.Entry) []at {
	var out []at
	for i, e := range entries {
		m, ok := e.Body.(*session.Message)
		if !ok {
			continue
		}
		for _, b := range m.Message.Content {
			switch {
			case b.Type == llm.BlockToolCall && m.Message.Role == llm.RoleAssistant:
				if s.o.Periodic.Run() == "" {
					out = append(out, at{i, s.startRunLocked()})
				}
				out = append(out, at{i, advisor.Event{Kind: advisor.EventToolStarted, Call: advisor.CallKey{ID: b.ID}}})
			case b.Type == llm.BlockToolResult:
				out = append(out, at{i, advisor.Event{Kind: advisor.EventToolSettled, Call: advisor.CallKey{ID: b.ID}}})
			}
		}
	}
	return out
}

// startRunLocked names a new run of the user's and makes it the
// periodic host's current one; it returns the event to report. The
// caller holds mu.
func (s *Sidecar) startRunLocked() advisor.Event {
	s.runs++
	run := fmt.Sprintf("run-%d", s.runs)
	s.o.Periodic.setRun(run)
	return advisor.Event{Kind: advisor.EventRunStarted, Run: run, Trigger: advisor.TriggerUser}
}

// maxCalls bounds the tool call ids a sidecar remembers.
const maxCalls = 256

// sawCall remembers a tool call id, forgetting the oldest beyond
// maxCalls. The caller holds mu.
func (s *Sidecar) sawCall(id string) {
	if s.calls == nil {
		s.calls = map[string]bool{}
	}
	if s.calls[id] {
		return
	}
	s.calls[id] = true
	s.callOrder = append(s.callOrder, id)
	if len(s.callOrder) > maxCalls {
		delete(s.calls, s.callOrder[0])
		s.callOrder = s.callOrder[1:]
	}
}

// awaitCall reads the transcript until it holds the tool call a tool
// hook is about, at most FlushWait: the agents write their transcript
// behind their hooks, and the steps before that call must be read (and
// reported) before the hook decides what is due.
func (s *Sidecar) awaitCall(ctx context.Context, id string) error {
	if id == "" {
		return s.Sync()
	}
	return s.readUntil(ctx, 10*time.Millisecond, "tool call "+id, func() (bool, error) {
		_, err := s.syncLocked(false)
		if err != nil || s.calls[id] || s.transcriptGone() {
			return true, err
		}
		if s.follower == nil || !s.follower.Holds(id) {
			return false, nil
		}
		// The agent ran the call, so its reply is whole: report it now
		// rather than when the next reply is written.
		b, err := s.follower.Release(id)
		s.apply(b)
		if err != nil {
			err = s.fail(err)
		}
		return true, err
	})
}

// awaitLastReply reads the transcript to its end, the turn settled (a
// message held back in case it continued is complete now), until it
// holds the message the Stop hook says the agent ended with, at most
// FlushWait: Claude Code calls Stop before it writes that message.
func (s *Sidecar) awaitLastReply(ctx context.Context, in Input) error {
	want := ""
	if in.LastAssistantMessage != nil {
		want = strings.TrimSpace(*in.LastAssistantMessage)
	}
	return s.readUntil(ctx, 20*time.Millisecond, "the agent's last message", func() (bool, error) {
		more, err := s.syncLocked(true)
		return err != nil || s.transcriptGone() || !more && (want == "" || sameText(s.lastReply, want)), err
	})
}

// readUntil calls done (with mu held) every tick until it reports true,
// FlushWait passes or ctx is done; what names what it waits for, in the
// log line that says it gave up. Only done's error is returned: a
// transcript that lags costs the hook some wait, never its answer.
func (s *Sidecar) readUntil(ctx context.Context, tick time.Duration, what string, done func() (bool, error)) error {
	deadline := time.NewTimer(s.o.FlushWait)
	defer deadline.Stop()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		s.mu.Lock()
		ok, err := done()
		s.mu.Unlock()
		if ok {
			return err
		}
		select {
		case <-t.C:
		case <-deadline.C:
			s.o.Logf("the transcript does not show %s after %v; going on without it", what, s.o.FlushWait)
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// sameText reports whether the transcript's last message got is the one
// the Stop hook named: equal once white space is folded, or one ending
// the other (the agents join a message's text blocks differently).
func sameText(got, want string) bool {
	if got == "" {
		return false
	}
	g, w := strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(want), " ")
	return strings.HasSuffix(g, w) || strings.HasSuffix(w, g)
}
