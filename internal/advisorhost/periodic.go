package advisorhost

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// The sources of the calls Periodic reports: the agent's own calls, and
// those of the subagent a task call runs (SourceSubagent + its id), whose
// ids are numbered apart from the agent's.
const (
	SourceAgent    = "agent"
	SourceSubagent = "subagent:"
)

// BlockedByPolicy is the reason [Periodic.SteerRun] gives when the
// advisor may not inject anything into the agent's runs.
const BlockedByPolicy = "advisor.allowPromptInjection=false"

// Periodic is an [advisor.PeriodicHost] over one agent: its [Host], and
// the runs, tool calls, forks and run-scoped steers of the periodic mode.
// Its methods are safe for concurrent use.
type Periodic struct {
	*Host
	allow    bool
	redactor *history.Redactor

	mu sync.Mutex
	// run names the run going, "" when none; runs counts them.
	run  string
	runs int
	// task is the agent's own call running now: the parent of the calls
	// of a subagent, which run inside a task call.
	task advisor.CallKey
}

var _ advisor.PeriodicHost = (*Periodic)(nil)

// NewPeriodic returns the periodic host over h's agent. With allow false
// (advisor.allowPromptInjection: false) SteerRun delivers nothing and
// answers [advisor.SteerBlocked]; the runtime then shows the correction
// through the Host's [Host.Withhold]. Each fork's request passes r (nil
// hides nothing) before it is sent.
func NewPeriodic(h *Host, allow bool, r *history.Redactor) *Periodic {
	return &Periodic{Host: h, allow: allow, redactor: r}
}

// Forward subscribes to the agent's events and passes the periodic mode's
// to notify (the runtime's Notify); Close ends the subscription. notify
// is called on the agent's goroutine and must not block. The mapping:
//
//	agent event                                advisor event
//	turn_start opening a run                   run_started, Run "run-N", Trigger
//	                                           user (a prompt), resume (the
//	                                           user's) or advisor (its own)
//	message_end with tool calls                tool_started, each call, Source agent
//	tool_end                                   tool_settled, Source agent
//	subagent_event: message_end with calls     tool_started, Source subagent:ID,
//	                                           Parent the running task call
//	subagent_event: tool_end                   tool_settled, the same
//	idle                                       run_ended, Run
//
// A step's calls all start when its reply is written, before the first
// runs, so that no review forks between two calls of one step; a call
// the agent skips settles with its tool_end like any other.
func (p *Periodic) Forward(notify func(advisor.Event)) {
	unsub := p.ag.Subscribe(func(ev agent.Event) {
		p.observe(ev)
		for _, out := range p.mapEvent(ev) {
			notify(out)
		}
	})
	p.Host.mu.Lock()
	p.unsubs = append(p.unsubs, unsub)
	p.Host.mu.Unlock()
}

func (p *Periodic) mapEvent(ev agent.Event) []advisor.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Type {
	case agent.EventTurnStart:
		if p.run != "" {
			return nil // a follow-up's turn, within the run
		}
		p.runs++
		p.run = "run-" + strconv.Itoa(p.runs)
		var trigger string
		switch {
		case ev.Cause == agent.CausePrompt:
			trigger = advisor.TriggerUser
		case advisorResumed(ev):
			trigger = advisor.TriggerAdvisor
		case ev.Cause == agent.CauseResume:
			trigger = advisor.TriggerResume // the user's resume
		default:
			trigger = string(ev.Cause)
		}
		return []advisor.Event{{Kind: advisor.EventRunStarted, Run: p.run, Trigger: trigger}}
	case agent.EventIdle:
		if p.run == "" {
			return nil
		}
		run := p.run
		p.run, p.task = "", advisor.CallKey{}
		return []advisor.Event{{Kind: advisor.EventRunEnded, Run: run}}
	case agent.EventMessageEnd:
		return started(ev, SourceAgent, advisor.CallKey{})
	case agent.EventToolStart:
		p.task = advisor.CallKey{Source: SourceAgent, ID: ev.ToolCallID}
	case agent.EventToolEnd:
		p.task = advisor.CallKey{}
		return []advisor.Event{{Kind: advisor.EventToolSettled, Call: advisor.CallKey{Source: SourceAgent, ID: ev.ToolCallID}}}
	case agent.EventSubagent:
		sub := ev.Subagent
		if sub == nil {
			return nil
		}
		source := SourceSubagent + ev.SubagentID
		switch sub.Type {
		case agent.EventMessageEnd:
			return started(*sub, source, p.task)
		case agent.EventToolEnd:
			return []advisor.Event{{Kind: advisor.EventToolSettled, Call: advisor.CallKey{Source: source, ID: sub.ToolCallID}, Parent: p.task}}
		}
	}
	return nil
}

// started reports the calls of the reply a message_end carries.
func started(ev agent.Event, source string, parent advisor.CallKey) []advisor.Event {
	if ev.Entry == nil {
		return nil
	}
	m, ok := ev.Entry.Body.(*session.Message)
	if !ok {
		return nil
	}
	var out []advisor.Event
	for _, c := range m.Message.ToolCalls() {
		out = append(out, advisor.Event{Kind: advisor.EventToolStarted, Call: advisor.CallKey{Source: source, ID: c.ID}, Parent: parent})
	}
	return out
}

// Fork implements [advisor.PeriodicHost]: the session's current path, cut
// before a trailing reply whose calls are not all answered, as the
// agent's own request ([agent.Agent.Fork]: its system prompt, tool
// definitions and messages), with prompt added to its last user message
// (or as one), redacted, sent to the agent's model. Tool calls in the
// reply are not run.
//
// The fork is the advisor's request, though it goes to the agent's model:
// it passes the Redactor like every other, the agent's messages (what
// its tools printed, its thinking) included. A conversation with no
// secret in it is sent byte for byte, so the prompt cache still serves
// it; one with secrets differs from where the first one was.
func (p *Periodic) Fork(ctx context.Context, prompt string) (advisor.ForkReply, error) {
	return p.fork(ctx, prompt, nil, llm.Ref{})
}

// ForkOn returns the host as one advisor of a roster sees it: the same
// runs and steers, but its forks, the agent's same request, go to model
// (named ref) instead of the agent's own; nil keeps the agent's. No
// prompt cache is shared with the agent on another model.
func (p *Periodic) ForkOn(model llm.Model, ref llm.Ref) advisor.PeriodicHost {
	if model == nil {
		return p
	}
	return forkOn{p, model, ref}
}

// forkOn is [Periodic.ForkOn]'s host.
type forkOn struct {
	*Periodic
	model llm.Model
	ref   llm.Ref
}

func (f forkOn) Fork(ctx context.Context, prompt string) (advisor.ForkReply, error) {
	return f.fork(ctx, prompt, f.model, f.ref)
}

// fork is Fork onto model, or onto the agent's when model is nil.
func (p *Periodic) fork(ctx context.Context, prompt string, model llm.Model, ref llm.Ref) (advisor.ForkReply, error) {
	if err := ctx.Err(); err != nil {
		return advisor.ForkReply{}, err
	}
	s := p.session()
	path, err := s.Path(s.Leaf())
	if err != nil {
		return advisor.ForkReply{}, fmt.Errorf("advisorhost: fork: %w", err)
	}
	path = advisor.SettledPath(path)
	f := p.ag.Fork(path)
	req := redactRequest(p.redactor, f.Request)
	req.Messages = withUserText(req.Messages, p.redactor.Redact(prompt))
	if model == nil {
		model, ref = f.Model, f.Ref
	}
	resp, err := llm.Accumulate(model.Stream(ctx, req))
	if err != nil {
		return advisor.ForkReply{}, fmt.Errorf("advisorhost: fork on %s: %w", ref, err)
	}
	reply := advisor.ForkReply{Reply: resp.Message, Usage: resp.Usage, Model: ref}
	if len(path) > 0 {
		reply.At = path[len(path)-1].ID
	}
	return reply, nil
}

// redactRequest returns req with its system prompt and messages passed
// through r; req is not written. A thinking block that held a secret
// loses its signature, so the adapters leave it out; since Anthropic, with
// thinking on, refuses a step in progress without its reasoning, the
// request then runs with thinking off (the review asks for one short
// verdict, which needs none).
func redactRequest(r *history.Redactor, req llm.Request) llm.Request {
	if r == nil {
		return req
	}
	req.System = r.Redact(req.System)
	msgs := slices.Clone(req.Messages)
	for i, m := range msgs {
		msgs[i] = r.RedactMessage(m)
		if history.DroppedSignature(m, msgs[i]) {
			req.Thinking = llm.ThinkingOff
		}
	}
	req.Messages = msgs
	return req
}

// withUserText adds text to the conversation as the agent adds a steer:
// into the last message if it is the user's, else as a new one. msgs is
// not written.
func withUserText(msgs []llm.Message, text string) []llm.Message {
	out := slices.Clone(msgs)
	if n := len(out); n > 0 && out[n-1].Role == llm.RoleUser {
		content := append(slices.Clip(out[n-1].Content), llm.Text(text))
		out[n-1] = llm.Message{Role: llm.RoleUser, Content: content}
		return out
	}
	return append(out, llm.UserText(text))
}

// DeliveryPeriodic is the source a periodic correction's entry records in
// its details: {"delivery": "steer", "source": "advisor:periodic"}.
const DeliveryPeriodic = "advisor:periodic"

// SteerRun implements [advisor.PeriodicHost] with [agent.Agent.SteerRun]:
// an interrupting custom message of type [CustomType], whose details say
// it came from the periodic review.
func (p *Periodic) SteerRun(ctx context.Context, run string, note advisor.Advice) (advisor.SteerResult, error) {
	if err := ctx.Err(); err != nil {
		return advisor.SteerResult{}, err
	}
	if !p.allow {
		return advisor.SteerResult{Outcome: advisor.SteerBlocked, Reason: BlockedByPolicy}, nil
	}
	details, _ := json.Marshal(map[string]string{"delivery": DeliverySteer, "source": DeliveryPeriodic})
	c := session.Custom{
		CustomType: CustomType,
		Content:    []llm.Block{llm.Text(advisor.FormatAdvisories([]advisor.Advice{note}))},
		Display:    true,
		InContext:  true,
		Details:    details,
	}
	// Held across the agent call: the run's end, which the subscriber
	// reports under p.mu, cannot be missed between the check and the
	// steer (the agent refuses once its run is over).
	p.mu.Lock()
	defer p.mu.Unlock()
	if run == "" || run != p.run || !p.ag.SteerRun(c, true) {
		return advisor.SteerResult{Outcome: advisor.SteerRunEnded}, nil
	}
	return advisor.SteerResult{Outcome: advisor.SteerDelivered}, nil
}
