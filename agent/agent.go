package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// Options configure an [Agent].
type Options struct {
	// Model answers the agent's requests. Retrying failed calls is its job
	// (wrap it in llm.WithRetry); the agent itself retries only a request
	// refused as too long, once, after compacting.
	Model llm.Model
	// Info describes the model: ContextWindow sets when compaction starts,
	// and Provider and ID name the model on assistant entries. Zero is
	// allowed: no threshold compaction and no model recorded.
	Info llm.ModelInfo
	// Thinking is the thinking level of every request; "" leaves it to the
	// model.
	Thinking llm.ThinkingLevel
	// System is the whole system prompt, built by the caller. Advisory
	// tags in it (from an AGENTS.md, say) are escaped, as everywhere but
	// in an advisor's notes ([CustomAdvisor]).
	System string
	// Session is where the conversation is read from and written to. The
	// agent continues from its current leaf.
	Session *session.Session
	// Tools are the tools the model may call; their names must differ.
	Tools []tools.Tool
	// Compaction says when and how to compact the context.
	Compaction CompactionOptions
	// MaxTokens caps each reply; 0 leaves it to the model.
	MaxTokens int
	// Hooks take part in every step boundary; see [Hook].
	Hooks []Hook
	// BoundaryTimeout bounds the hooks' time at one boundary; 0 means
	// DefaultBoundaryTimeout.
	BoundaryTimeout time.Duration
	// Subagents, when set, adds the task tool, which runs a subagent; see
	// [SubagentConfig].
	Subagents *SubagentConfig
	// Approvals, when set, is the approval mode: the calls of the tools
	// it names wait for the user's approval; see [Approvals]. Subagents
	// share it. Nil runs every call unasked.
	Approvals *Approvals
}

// DefaultKeepRecentTokens is how much recent context a compaction keeps
// when Compaction.KeepRecentTokens is zero.
const DefaultKeepRecentTokens = 20000

// Agent is a coding agent's loop over one session. Its methods are safe for
// concurrent use; the package documentation says which run where and in
// what order their events come.
type Agent struct {
	model        llm.Model
	info         llm.ModelInfo
	system       string
	thinking     llm.ThinkingLevel
	maxTokens    int
	ref          llm.Ref
	window       int
	compaction   CompactionOptions
	hooks        []Hook
	boundaryWait time.Duration
	subagents    *SubagentConfig
	approvals    *Approvals

	toolset []tools.Tool
	byName  map[string]tools.Tool
	defs    []llm.Tool
	// fixedTokens estimates the system prompt and tool definitions.
	fixedTokens int64

	// subs is the copy-on-write list of subscribers; writers hold mu.
	subs atomic.Pointer[[]*subscriber]

	mu sync.Mutex
	// busy is the token held by whatever may write the session and emit
	// events: a run, a compaction, an AppendCustom. Its holder alone
	// touches the fields below marked "holder".
	busy bool
	// running says the busy token is held by a run (Prompt, Resume).
	running bool
	// appending, while an AppendCustom of the idle agent holds the busy
	// token, is closed once it lets go (acquire waits for it); nil
	// otherwise.
	appending chan struct{}
	// runs counts the runs started; the one going, if any, is number runs.
	runs int
	// runCancel aborts the run in progress; nil when there is none.
	runCancel context.CancelCauseFunc
	// interrupt cancels the wait an interrupting steer cuts short (the
	// running tools, the boundary hooks, or the model request); nil when
	// there is none. wait says which it is (setInterrupt).
	interrupt     context.CancelCauseFunc
	wait          waitKind
	steers        []queuedSteer
	followUps     []string
	customs       []session.Custom
	sess          *session.Session
	turn, step    int
	usage         llm.Usage
	contextTokens int64
	lastAborted   bool

	// view is the model's view of the session (holder).
	view view
	// compactFailed says a threshold compaction failed in this turn
	// (holder).
	compactFailed bool
}

type queuedSteer struct {
	body      session.Body
	interrupt bool
	// abort says the steer may also abort the model request in flight
	// ([SteerOptions].AbortRequest); it implies interrupt.
	abort bool
	// run, when not 0, is the run the steer belongs to (SteerRun): it is
	// dropped if that run ends before delivering it.
	run int
}

// New returns an agent over opts. It reads the session's current branch
// once; it writes nothing.
func New(opts Options) (*Agent, error) {
	switch {
	case opts.Model == nil:
		return nil, errors.New("agent: new: Options.Model is nil")
	case opts.Session == nil:
		return nil, errors.New("agent: new: Options.Session is nil")
	case opts.MaxTokens < 0:
		return nil, fmt.Errorf("agent: new: negative MaxTokens %d", opts.MaxTokens)
	}
	a := &Agent{
		model:        opts.Model,
		info:         opts.Info,
		system:       neutraliseText(opts.System), // AGENTS.md is in it
		thinking:     opts.Thinking,
		maxTokens:    opts.MaxTokens,
		window:       opts.Info.ContextWindow,
		compaction:   opts.Compaction,
		hooks:        append([]Hook(nil), opts.Hooks...),
		boundaryWait: opts.BoundaryTimeout,
		subagents:    opts.Subagents,
		approvals:    opts.Approvals,
		sess:         opts.Session,
		byName:       make(map[string]tools.Tool),
	}
	if a.boundaryWait <= 0 {
		a.boundaryWait = DefaultBoundaryTimeout
	}
	if opts.Info.ID != "" {
		a.ref = opts.Info.Ref()
		if opts.Thinking.Enabled() {
			a.ref.Thinking = opts.Thinking
		}
		if got, err := llm.ParseRef(a.ref.String()); err != nil || got != a.ref {
			return nil, fmt.Errorf("agent: new: model %q cannot be recorded as a reference", a.ref)
		}
	}
	set := append([]tools.Tool(nil), opts.Tools...)
	if opts.Subagents != nil {
		set = append(set, &taskTool{a: a})
	}
	for _, t := range set {
		def := t.Definition()
		if _, dup := a.byName[def.Name]; dup || def.Name == "" {
			return nil, fmt.Errorf("agent: new: tool name %q is empty or used twice", def.Name)
		}
		a.byName[def.Name] = t
		a.defs = append(a.defs, def)
		a.fixedTokens += llm.EstimateTokens(def.Name) + llm.EstimateTokens(def.Description) + llm.EstimateTokens(string(def.Schema))
	}
	a.toolset = set
	a.fixedTokens += llm.EstimateTokens(a.system)
	if err := a.view.rebuild(a.sess, a.fixedTokens); err != nil {
		return nil, fmt.Errorf("agent: new: %w", err)
	}
	a.contextTokens = a.view.tokens()
	return a, nil
}

// Session returns the session the agent writes to.
func (a *Agent) Session() *session.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sess
}

// State is a snapshot of an agent, for status lines and for the advisor's
// delivery policy.
type State struct {
	// Running says a run (Prompt, Resume) is in progress.
	Running bool
	// Turn counts the turns started; Step the steps of the latest turn.
	Turn, Step int
	// QueuedSteers, QueuedFollowUps and QueuedCustom count messages
	// waiting for delivery.
	QueuedSteers, QueuedFollowUps, QueuedCustom int
	// Usage sums the usage of every model call the agent made, summaries
	// included.
	Usage llm.Usage
	// ContextTokens is the size of the context the next request sends:
	// the last reply's reported prompt and output tokens plus an estimate
	// of what was appended since (an estimate of everything when no reply
	// was reported since the last history rewrite).
	ContextTokens int64
	// CompactAt is the context size above which the agent compacts
	// before its next request; 0 when it never does.
	CompactAt int
	// Aborted says the latest run ended by Abort (omp's user-interrupt
	// latch; a new run clears it).
	Aborted bool
	// Thinking is the thinking level of its requests ("" for the
	// model's default).
	Thinking llm.ThinkingLevel
}

// State returns a snapshot of the agent.
func (a *Agent) State() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	return State{
		Running:         a.running,
		Turn:            a.turn,
		Step:            a.step,
		QueuedSteers:    len(a.steers),
		QueuedFollowUps: len(a.followUps),
		QueuedCustom:    len(a.customs),
		Usage:           a.usage,
		ContextTokens:   a.contextTokens,
		CompactAt:       a.compaction.Threshold(a.window),
		Aborted:         a.lastAborted,
		Thinking:        a.thinking,
	}
}
