package advisorhost

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// CustomType is the custom type of every entry the advisor's notes become.
const CustomType = "advisor"

// ResumeText opens a run the advisor resumes, so the primary acts on the
// steered note delivered right after it.
const ResumeText = "The advisor raised a concern after you stopped; weigh it and continue if it matters."

// Host is an [advisor.Host] over one agent. Its methods are safe for
// concurrent use.
type Host struct {
	ag   *agent.Agent
	sess *session.Session

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	syncW  syncWait
	asides []advisor.Advice
	// withheld are notes to show the user at the run's next boundary, or
	// at its end (see Withhold).
	withheld []advisor.Advice
	unsubs   []func()
	closed   bool
}

var (
	_ advisor.Host       = (*Host)(nil)
	_ advisor.Withholder = (*Host)(nil)
)

// syncWait is the hook's wait for the advisor (see SetSync).
type syncWait struct {
	threshold int
	timeout   time.Duration
	wait      func(ctx context.Context, n int) error
}

// New returns a host over a, whose session is s when it starts. After the
// agent switches sessions, the host reads the agent's current one.
func New(a *agent.Agent, s *session.Session) *Host {
	ctx, cancel := context.WithCancel(context.Background())
	return &Host{ag: a, sess: s, ctx: ctx, cancel: cancel}
}

// session is the session the agent writes to now.
func (h *Host) session() *session.Session {
	if s := h.ag.Session(); s != nil {
		return s
	}
	return h.sess
}

// Since implements [advisor.Host].
func (h *Host) Since(ctx context.Context, cursor int) ([]session.Entry, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, cursor, err
	}
	entries, next := h.session().Since(cursor)
	return entries, next, nil
}

// View implements [advisor.Host]: the path to the session's leaf as the
// model sees it (a compaction first, then what it kept and what follows).
func (h *Host) View(ctx context.Context) ([]session.Entry, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s := h.session()
	// The end is read first: an entry appended meanwhile is then read
	// twice (in the view and by Since), never missed.
	end := s.Len()
	path, err := s.Path(s.Leaf())
	if err != nil {
		return nil, 0, err
	}
	return path, end, nil
}

// Aside implements [advisor.Host]: the note waits for the hook.
func (h *Host) Aside(ctx context.Context, note advisor.Advice) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.mu.Lock()
	h.asides = append(h.asides, note)
	h.mu.Unlock()
	return nil
}

// Steer implements [advisor.Host]: an interrupting steer. A blocker
// may also abort the model request in flight, which is then sent again
// with it ([agent.SteerOptions].AbortRequest); a concern waits for the
// step's boundary.
func (h *Host) Steer(ctx context.Context, note advisor.Advice) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.ag.SteerCustomWith(custom([]advisor.Advice{note}, DeliverySteer),
		agent.SteerOptions{Interrupt: true, AbortRequest: note.Severity == advisor.SeverityBlocker})
	return nil
}

// Card implements [advisor.Host].
func (h *Host) Card(ctx context.Context, note advisor.Advice) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The card is in the model's context: the run is stopped, so the
	// model next reads it when the user resumes, which is when it should.
	_, err := h.ag.AppendCustom(custom([]advisor.Advice{note}, DeliveryCard))
	if errors.Is(err, agent.ErrDeferred) {
		return nil
	}
	return err
}

// Withhold implements [advisor.Withholder]: the note becomes an entry of
// type [CustomType], displayed and never in the model's context, its
// details {"delivery": "withheld"}. While a run is going it waits for the
// run's next step boundary (the hook writes it with the step, so the user
// sees it mid-run) or, if none comes, for the run's end; otherwise it is
// written now.
func (h *Host) Withhold(ctx context.Context, note advisor.Advice) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Checked and queued under h.mu, which the run's end takes to flush
	// the queue (flushWithheld): the agent clears Running before it
	// reports the end, so a note queued here is never left behind.
	h.mu.Lock()
	if h.ag.State().Running {
		h.withheld = append(h.withheld, note)
		h.mu.Unlock()
		return nil
	}
	h.mu.Unlock()
	_, err := h.ag.AppendCustom(withheldCustom([]advisor.Advice{note}))
	if errors.Is(err, agent.ErrDeferred) {
		return nil // written when the agent's token is given back
	}
	return err
}

// flushWithheld writes the notes a run's boundaries did not, at its end.
// It is called from the agent's idle event, while the run still holds the
// agent, so the write is queued and made as the agent lets go.
func (h *Host) flushWithheld() {
	h.mu.Lock()
	notes := h.withheld
	h.withheld = nil
	h.mu.Unlock()
	if len(notes) == 0 {
		return
	}
	// A failed write has nowhere to be reported from the agent's event;
	// the notes are still in the advisor's transcript and counters.
	_, _ = h.ag.AppendCustom(withheldCustom(notes))
}

// ShowPromotion implements [advisor.PromotionShower]: the promotion
// becomes a displayed entry of [PromotionType], outside the model's
// context; while a run holds the agent it is written as the agent lets go.
func (h *Host) ShowPromotion(_ context.Context, p advisor.PromotionRecord) error {
	_, err := h.ag.AppendCustom(*PromotionEntry(p))
	if errors.Is(err, agent.ErrDeferred) {
		return nil
	}
	return err
}

// Thinking implements [advisor.ThinkingSource]: the thinking level of the
// agent's requests, which an advisor with effort auto follows.
func (h *Host) Thinking() llm.ThinkingLevel { return h.ag.State().Thinking }

// Resume implements [advisor.Host]: it starts a run on a goroutine of the
// host's and returns at once. A run already going is left alone.
func (h *Host) Resume(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errors.New("advisorhost: closed")
	}
	if h.ag.State().Running {
		return nil
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		// ErrBusy means a run started meanwhile: nothing to do. Other
		// errors end up in the transcript and the event stream.
		_ = h.ag.Resume(h.ctx, ResumeText)
	}()
	return nil
}

// SetSync makes the hook wait for the advisor at each step boundary:
// while the backlog is at or above threshold it calls wait(ctx, threshold)
// (the runtime's [advisor.Runtime.WaitBacklogBelow]), with ctx the
// boundary's own (which a user abort, an interrupting steer such as the
// advisor's, or the agent's boundary timeout ends) further bounded by
// timeout when timeout > 0. Then it hands over the asides queued until
// then. Steers the advisor sent meanwhile went through the agent's steer
// queue, which the agent delivers at this boundary, right after the
// hooks. threshold <= 0 (the default) or a nil wait turns waiting off.
func (h *Host) SetSync(threshold int, timeout time.Duration, wait func(ctx context.Context, n int) error) {
	h.mu.Lock()
	h.syncW = syncWait{threshold: threshold, timeout: timeout, wait: wait}
	h.mu.Unlock()
}

// Hook returns the hook that delivers the queued asides, after waiting
// for the advisor if SetSync says so; pass it in agent.Options.Hooks of
// the agent the host watches.
func (h *Host) Hook() agent.Hook {
	return agent.HookFunc(func(ctx context.Context, _ agent.BoundaryInfo) []agent.Injection {
		h.mu.Lock()
		sw := h.syncW
		h.mu.Unlock()
		if sw.threshold > 0 && sw.wait != nil && ctx.Err() == nil {
			wctx, cancel := ctx, context.CancelFunc(func() {})
			if sw.timeout > 0 {
				wctx, cancel = context.WithTimeout(ctx, sw.timeout)
			}
			// Whatever ends the wait (the review done, the time out, an
			// abort, a steer, a stopped runtime), go on with what arrived.
			_ = sw.wait(wctx, sw.threshold)
			cancel()
		}
		h.mu.Lock()
		notes, withheld := h.asides, h.withheld
		h.asides, h.withheld = nil, nil
		h.mu.Unlock()
		var out []agent.Injection
		if len(withheld) > 0 {
			// Not in context: the model does not see it, and it does not
			// continue a turn that was ending.
			c := withheldCustom(withheld)
			out = append(out, agent.Injection{Custom: &c})
		}
		if len(notes) > 0 {
			c := custom(notes, DeliveryAside)
			out = append(out, agent.Injection{Custom: &c})
		}
		return out
	})
}

// Forward subscribes to the agent's events and passes each one the
// advisor cares about to notify (the runtime's Notify), mapped as the
// package documentation says. notify is called on the agent's goroutine
// and must not block. Close ends the subscription.
func (h *Host) Forward(notify func(advisor.Event)) {
	unsub := h.ag.Subscribe(func(ev agent.Event) {
		h.observe(ev)
		if out, ok := h.mapEvent(ev); ok {
			notify(out)
		}
	})
	h.mu.Lock()
	h.unsubs = append(h.unsubs, unsub)
	h.mu.Unlock()
}

func (h *Host) mapEvent(ev agent.Event) (advisor.Event, bool) {
	switch ev.Type {
	case agent.EventStepEnd:
		return advisor.Event{Kind: advisor.EventStepEnded, Cursor: h.session().Len()}, true
	case agent.EventTurnEnd, agent.EventIdle:
		return advisor.Event{Kind: advisor.EventRunEnded}, true
	case agent.EventAborted:
		return advisor.Event{Kind: advisor.EventUserInterrupted}, true
	case agent.EventTurnStart:
		if ev.Cause == agent.CausePrompt || ev.Cause == agent.CauseFollowUp || ev.Cause == agent.CauseResume && !advisorResumed(ev) {
			return advisor.Event{Kind: advisor.EventUserResumed}, true
		}
	case agent.EventHistoryRewritten:
		return advisor.Event{Kind: advisor.EventHistoryRewritten, Cursor: h.session().Len()}, true
	}
	return advisor.Event{}, false
}

// observe is what the host itself does on the agent's events, whichever
// mode subscribed it: at a run's end it writes the withheld notes no
// boundary took.
func (h *Host) observe(ev agent.Event) {
	if ev.Type == agent.EventIdle {
		h.flushWithheld()
	}
}

// advisorResumed reports whether a turn_start opens a run the advisor
// resumed ([Host.Resume]), rather than one the user resumed (vigil's
// resume command, which calls the same [agent.Agent.Resume]): its opening
// entry is the resume entry holding [ResumeText].
func advisorResumed(ev agent.Event) bool {
	if ev.Cause != agent.CauseResume || ev.Entry == nil {
		return false
	}
	c, ok := ev.Entry.Body.(*session.Custom)
	return ok && c.CustomType == agent.CustomResume && len(c.Content) == 1 && c.Content[0].Text == ResumeText
}

// Close ends the event subscriptions, cancels a run the host resumed and
// waits for it. Queued asides are dropped. Close may be called more than
// once.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	unsubs := h.unsubs
	h.unsubs = nil
	h.asides = nil
	h.mu.Unlock()
	for _, u := range unsubs {
		u()
	}
	h.cancel()
	h.wg.Wait()
}

// How a note reached the primary, as an advisor entry's details record
// it: {"delivery": "aside"}. DeliveryWithheld is a note that did not:
// shown to the user, never in the model's context.
const (
	DeliveryAside    = "aside"
	DeliverySteer    = "steer"
	DeliveryCard     = "card"
	DeliveryWithheld = "withheld"
)

// custom is the entry notes become: displayed, in the model's context,
// with the delivery in its details.
func custom(notes []advisor.Advice, delivery string) session.Custom {
	return session.Custom{
		CustomType: CustomType,
		Content:    []llm.Block{llm.Text(advisor.FormatAdvisories(notes))},
		Display:    true,
		InContext:  true,
		Details:    json.RawMessage(`{"delivery":"` + delivery + `"}`),
	}
}

// withheldCustom is the entry withheld notes become: displayed, and out
// of the model's context.
func withheldCustom(notes []advisor.Advice) session.Custom {
	c := custom(notes, DeliveryWithheld)
	c.InContext = false
	return c
}
