package sidecar

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/transcript"
)

// Follower reads the watched agent's transcript as it grows
// ([transcript.Follower]).
type Follower interface {
	Poll() (transcript.Batch, error)
	Settle() (transcript.Batch, error)
	// Holds reports whether the reply held back for more lines makes the
	// tool call callID; Release completes it (the agent ran the call, so
	// the reply is whole).
	Holds(callID string) bool
	Release(callID string) (transcript.Batch, error)
}

// Advisor is the advisor runtime a sidecar feeds ([advisor.Runtime]).
type Advisor interface {
	Notify(advisor.Event)
	WaitBacklogBelow(ctx context.Context, n int) error
}

// StopWaitCap bounds how long the Stop hook waits for the advisor to
// review the run's last steps.
const StopWaitCap = 30 * time.Second

// Options configure a [Sidecar].
type Options struct {
	// Key names the watched session.
	Key Key
	// Host is the advisor's host; Advisor the runtime over it.
	Host    *Host
	Advisor Advisor
	// Transcript is the agent's transcript file; Follow opens a follower
	// on a path (it is called again if the agent moves to another file).
	Transcript string
	Follow     func(path string) Follower
	// SyncBacklog: at a tool boundary the hook waits while this many
	// steps are unreviewed (advisor.syncBacklog; 0 never waits), at most
	// SyncTimeout.
	SyncBacklog int
	SyncTimeout time.Duration
	// StopWait bounds the Stop hook's wait for the last reviews (at most
	// StopWaitCap; 0 means StopWaitCap).
	StopWait time.Duration
	// FlushWait bounds how long the Stop hook waits for the agent to
	// write its last message (Claude Code calls Stop before it does);
	// 0 means 2 s.
	FlushWait time.Duration
	// GoneWait is how long a removed transcript may stay away before the
	// sidecar stops (trouble.go); 0 means DefaultGoneWait.
	GoneWait time.Duration
	// Logf logs what the sidecar did and why; nil logs nothing.
	Logf func(format string, args ...any)
	// Disabled, when set, says why the sidecar cannot advise (its
	// settings could not be read): it reads no transcript and answers
	// every hook at once with nothing, telling the first one why
	// ([ProblemHeader]), so that the hooks of the session keep finding
	// it instead of starting a sidecar each. Host, Advisor and Follow
	// are not used.
	Disabled string
	// Periodic, when set, is the host of a periodic-mode advisor (which
	// Advisor then is): the sidecar also reports each run (from the
	// user's prompt to a Stop it does not block) and each tool call
	// (from its reply to its result), and at a Stop it waits for the
	// review and blocks with its correction before the run may end.
	Periodic *PeriodicHost
}

// notesIn counts the notes in a delivery's text: one <advisory> element
// each (a note's own text is escaped, so it cannot open one).
func notesIn(text string) int { return max(strings.Count(text, "<advisory "), 1) }

// Stats counts what a sidecar did, for `vigil status`. Delivered counts
// the notes handed to the agent, Blocks the Stop blocks that carried
// some.
type Stats struct {
	Hooks     int       `json:"hooks"`
	Steps     int       `json:"steps"`
	Delivered int       `json:"delivered"`
	Blocks    int       `json:"blocks"`
	Resets    int       `json:"resets"`
	LastHook  time.Time `json:"last_hook,omitzero"`
	LastError string    `json:"last_error,omitempty"`
	// Withheld counts the notes kept from the agent
	// (advisor.allowPromptInjection: false); WithheldNotes are the
	// latest [StatsWithheld] of them, oldest first, escaped to one line
	// each ([LogText]).
	Withheld      int      `json:"withheld"`
	WithheldNotes []string `json:"withheld_notes,omitempty"`
	// Consults counts the agent's questions the advisor answered
	// (POST /consult, from `vigil mcp`); ConsultFailures those it did not.
	Consults        int `json:"consults,omitempty"`
	ConsultFailures int `json:"consult_failures,omitempty"`
}

// StatsWithheld bounds the withheld notes [Sidecar.Stats] returns.
const StatsWithheld = 5

// Sidecar follows one watched session and answers its hooks.
type Sidecar struct {
	o Options

	// mu serialises reading the transcript and reporting what it holds.
	mu        sync.Mutex
	follower  Follower
	path      string
	lastReply string // text of the last assistant message read
	// calls are the ids of the latest tool calls read, so a tool hook
	// can wait until the transcript holds the call it is about.
	calls       map[string]bool
	callOrder   []string
	interrupted bool
	stats       Stats
	// problem is the transcript condition last logged, "" while it
	// reads well; untold is the one no hook was told of yet; gone is
	// when the transcript was found removed, zero while it is there;
	// restarted says a follower was started anew on a changed file and
	// has read nothing yet (trouble.go).
	problem, untold string
	gone            time.Time
	restarted       bool
	// pseudo is the refusal of a transcript on a kernel file system;
	// pseudoChecked says the path was found elsewhere (trouble.go).
	pseudo        error
	pseudoChecked bool

	runs int // runs started, for their names
	// lastActive is when a hook came or an entry was read last, so a
	// sidecar whose agent has gone waits for a quiet transcript
	// (agentproc.go).
	lastActive time.Time

	ended     chan struct{}
	endOnce   sync.Once
	activity  chan struct{}
	endReason string
}

// New returns a sidecar over o.
func New(o Options) *Sidecar {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.StopWait <= 0 || o.StopWait > StopWaitCap {
		o.StopWait = StopWaitCap
	}
	if o.FlushWait <= 0 {
		o.FlushWait = 2 * time.Second
	}
	if o.GoneWait <= 0 {
		o.GoneWait = DefaultGoneWait
	}
	s := &Sidecar{o: o, path: o.Transcript, ended: make(chan struct{}), activity: make(chan struct{}, 1), lastActive: time.Now()}
	if o.Disabled != "" {
		s.problem, s.untold, s.stats.LastError = o.Disabled, o.Disabled, LogText(o.Disabled)
		return s
	}
	if o.Transcript != "" {
		s.follower = o.Follow(o.Transcript)
	}
	return s
}

// answerMargin is what a sidecar adds to its waits when it says how long
// an answer may take: reading the transcript and writing the answer.
const answerMargin = time.Second

// Waits returns the longest the sidecar may take to answer each event
// it can keep waiting, from its options ([Info.Waits]); the others
// answer at once.
func (s *Sidecar) Waits() map[string]int64 {
	if s.o.Disabled != "" {
		ms := answerMargin.Milliseconds()
		return map[string]int64{EventPostToolUse: ms, EventPostToolUseFailure: ms, EventStop: ms}
	}
	tool := s.o.FlushWait + answerMargin
	if s.o.SyncBacklog > 0 {
		tool += s.o.SyncTimeout
	}
	// Stop: the last message, then the last reviews.
	stop := s.o.FlushWait + s.o.StopWait + answerMargin
	return map[string]int64{
		EventPostToolUse:        tool.Milliseconds(),
		EventPostToolUseFailure: tool.Milliseconds(),
		EventStop:               stop.Milliseconds(),
	}
}

// Ended is closed when the session ended (SessionEnd).
func (s *Sidecar) Ended() <-chan struct{} { return s.ended }

// Activity receives a value (without blocking the sender) after each
// hook, so an idle timer can be reset.
func (s *Sidecar) Activity() <-chan struct{} { return s.activity }

// Stats returns the counters, with the notes withheld from the agent.
func (s *Sidecar) Stats() Stats {
	s.mu.Lock()
	st := s.stats
	s.mu.Unlock()
	if s.o.Host != nil {
		n, latest := s.o.Host.Withheld()
		st.Withheld = n
		for _, a := range latest[max(len(latest)-StatsWithheld, 0):] {
			st.WithheldNotes = append(st.WithheldNotes, LogText(a.Note))
		}
	}
	return st
}

// Handle answers one hook event; a nil Output means "nothing to say".
// The deadline of ctx bounds every wait.
func (s *Sidecar) Handle(ctx context.Context, in Input) (*Output, error) {
	select {
	case s.activity <- struct{}{}:
	default:
	}
	s.mu.Lock()
	s.stats.Hooks++
	s.stats.LastHook = time.Now()
	s.touchLocked()
	if s.o.Disabled != "" {
		s.mu.Unlock()
		if in.HookEventName == EventSessionEnd {
			s.end("session ended: " + in.Reason)
		}
		return nil, nil
	}
	if p := in.Transcript(); p != "" && p != s.path {
		// The agent moved to another file (or the first hook names it).
		if s.follower != nil {
			s.o.Logf("transcript moved from %s to %s", s.path, p)
			s.o.Advisor.Notify(advisor.Event{Kind: advisor.EventHistoryRewritten})
			s.stats.Resets++
		}
		s.path, s.follower = p, s.o.Follow(p)
		s.problem, s.untold, s.gone, s.restarted = "", "", time.Time{}, false
		s.pseudo, s.pseudoChecked = nil, false
	}
	s.mu.Unlock()

	if in.AgentID != "" {
		// A subagent's hook: its tools are not in the session transcript
		// the advisor reads, and notes for the main agent must not land
		// in the subagent's context.
		return nil, nil
	}
	switch in.HookEventName {
	case EventPostToolUse, EventPostToolUseFailure:
		return s.toolBoundary(ctx, in)
	case EventStop:
		return s.stop(ctx, in)
	case EventUserPromptSubmit:
		return s.prompt(in)
	case EventSessionStart:
		return nil, s.sessionStart(in)
	case EventSessionEnd:
		err := s.Sync()
		s.end("session ended: " + in.Reason)
		return nil, err
	default:
		return nil, s.Sync()
	}
}

// toolBoundary: a tool call ended. Read the steps that completed, wait
// for their review if advisor.syncBacklog says so, and hand over the
// notes that are due.
func (s *Sidecar) toolBoundary(ctx context.Context, in Input) (*Output, error) {
	if in.IsInterrupt {
		s.mu.Lock()
		s.interrupted = true
		s.mu.Unlock()
		s.o.Advisor.Notify(advisor.Event{Kind: advisor.EventUserInterrupted})
		return nil, s.Sync()
	}
	// Both agents write the call's result to their transcript only once
	// this hook has answered, so the step this call ends is reviewed
	// after it: the wait is for the steps before (and a note about this
	// one goes at the next boundary, or with the Stop).
	err := s.awaitCall(ctx, in.ToolUseID)
	if s.o.SyncBacklog > 0 {
		s.wait(ctx, s.o.SyncTimeout, s.o.SyncBacklog)
	}
	text := s.o.Host.Boundary()
	if text == "" {
		return nil, err
	}
	s.count(func(st *Stats) { st.Delivered += notesIn(text) })
	return contextReply(in.HookEventName, text), err
}

// stop: the agent is about to end its turn. Read its last message (which
// Claude Code writes after calling the hook), report the run's end, wait
// for the last reviews, and block with an interrupting note if one is
// due so that the agent takes one more turn.
func (s *Sidecar) stop(ctx context.Context, in Input) (*Output, error) {
	err := s.awaitLastReply(ctx, in)
	s.mu.Lock()
	interrupted := s.interrupted
	s.mu.Unlock()
	if s.o.Periodic != nil {
		return s.periodicStop(ctx, in, interrupted, err)
	}
	s.o.Advisor.Notify(advisor.Event{Kind: advisor.EventRunEnded})
	if in.StopHookActive || interrupted {
		// Never block twice in a row (the agent would loop), nor a run
		// the user stopped.
		return nil, err
	}
	s.wait(ctx, s.o.StopWait, 1)
	text := s.o.Host.StopNotes()
	if text == "" {
		return nil, err
	}
	s.count(func(st *Stats) { st.Blocks++; st.Delivered += notesIn(text) })
	return blockReply(text), err
}

// periodicStop: in the periodic mode a correction belongs to its run, so
// the Stop hook waits for a review in flight and blocks with its
// correction while the run still goes; only a Stop it does not block
// ends the run (and drops a correction that came too late).
func (s *Sidecar) periodicStop(ctx context.Context, in Input, interrupted bool, err error) (*Output, error) {
	if !in.StopHookActive && !interrupted {
		s.wait(ctx, s.o.StopWait, 1)
		if text := s.o.Host.StopNotes(); text != "" {
			s.count(func(st *Stats) { st.Blocks++; st.Delivered += notesIn(text) })
			return blockReply(text), err
		}
	}
	if run := s.o.Periodic.Run(); run != "" {
		s.o.Periodic.setRun("")
		s.o.Advisor.Notify(advisor.Event{Kind: advisor.EventRunEnded, Run: run})
	}
	return nil, err
}

// prompt: the user sent a prompt; the latch is cleared and the cards
// (and any notes still waiting) go with the prompt.
func (s *Sidecar) prompt(in Input) (*Output, error) {
	err := s.Sync()
	s.mu.Lock()
	s.interrupted = false
	var evs []advisor.Event
	if p := s.o.Periodic; p != nil {
		if run := p.Run(); run != "" {
			evs = append(evs, advisor.Event{Kind: advisor.EventRunEnded, Run: run})
		}
		evs = append(evs, s.startRunLocked())
	}
	s.mu.Unlock()
	s.o.Advisor.Notify(advisor.Event{Kind: advisor.EventUserResumed})
	for _, ev := range evs {
		s.o.Advisor.Notify(ev)
	}
	text := s.o.Host.Prompt()
	if text == "" {
		return nil, err
	}
	s.count(func(st *Stats) { st.Delivered += notesIn(text) })
	return contextReply(in.HookEventName, text), err
}

// sessionStart: after a compaction, resume or clear the agent's context
// was replaced; the advisor starts over from what the agent sees.
func (s *Sidecar) sessionStart(in Input) error {
	err := s.Sync()
	switch in.Source {
	case "compact", "resume", "clear":
		s.count(func(st *Stats) { st.Resets++ })
		s.o.Advisor.Notify(advisor.Event{Kind: advisor.EventHistoryRewritten})
	}
	return err
}

// wait waits, at most d and within ctx, until fewer than n steps are
// unreviewed. Whatever ends it, the hook goes on with what arrived.
func (s *Sidecar) wait(ctx context.Context, d time.Duration, n int) {
	if d <= 0 {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := s.o.Advisor.WaitBacklogBelow(wctx, n); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		s.o.Logf("wait for the advisor: %v", err)
	}
}

func (s *Sidecar) count(f func(*Stats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

// end marks the session ended.
func (s *Sidecar) end(reason string) {
	s.endOnce.Do(func() {
		s.endReason = reason
		close(s.ended)
	})
}

// EndReason says why the session ended, once Ended is closed.
func (s *Sidecar) EndReason() string {
	<-s.ended
	return s.endReason
}
