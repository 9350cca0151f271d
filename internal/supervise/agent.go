package supervise

import (
	"errors"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// AgentOptions say which of vigil's own agents an advisor watches, and
// how it tells the user.
type AgentOptions struct {
	// Agent and Session are the agent and its session. Required.
	Agent   *agent.Agent
	Session *session.Session
	// Start is where the advisor starts reading.
	Start advisor.StartPoint
	// Model is the advisor model; nil when none resolved.
	Model *models.Resolved
	// Hook is told the hook the agent's boundaries must call (the
	// agent takes its hooks at construction: [advisorhost.ForwardHook]).
	Hook *advisorhost.ForwardHook
	// FleetDown and FleetUp are [Host]'s.
	FleetDown func(err error)
	FleetUp   func(at string)
	// Rebind, when set and Model is, is called as each prompt's turn
	// starts (a changed modelRoles.advisor takes effect then, without a
	// restart).
	Rebind func(*AgentRun)
}

// AgentRun is the advisor of one of vigil's own agents: the host over
// the agent, and the [Advisor] over the host.
type AgentRun struct {
	Advisor
	host  *advisorhost.Host
	unsub func()
}

// StartAgent makes and starts the advisor of o.Agent: the periodic mode
// forks onto the agent's own model ([Config.AgentModel]); at a step end
// the agent waits while the advisor is [Advisor.SyncBacklog] steps
// behind, at most advisor.syncTimeoutSeconds. Warnings go to
// [Config.Warn]. It returns nil when there is nothing to
// review with.
func StartAgent(c *Config, o AgentOptions) (*AgentRun, error) {
	host := advisorhost.New(o.Agent, o.Session)
	h := Host{Host: host, Session: o.Session, SessionID: o.Session.ID(), Start: o.Start, Warn: c.Warn, FleetDown: o.FleetDown, FleetUp: o.FleetUp}
	var ph *advisorhost.Periodic
	if c.Periodic() && !c.Fleet() {
		ph = advisorhost.NewPeriodic(host, c.Settings.Advisor.AllowPromptInjection, c.Redactor)
		h.Fork, h.ForkRef, h.ForkPrice = ph, c.agentRef, c.agentPrice
	}
	adv, err := New(c, h, o.Model)
	if err != nil {
		host.Close()
		if errors.Is(err, ErrNothingToRun) {
			return nil, nil
		}
		return nil, err
	}
	host.SetSync(adv.SyncBacklog(), c.Settings.Advisor.SyncTimeout(), adv.WaitBacklogBelow)
	o.Hook.Set(host.Hook())
	if ph != nil {
		ph.Forward(adv.Notify)
	} else {
		host.Forward(adv.Notify)
	}
	run := &AgentRun{Advisor: adv, host: host, unsub: func() {}}
	if o.Model != nil && o.Rebind != nil {
		run.unsub = o.Agent.Subscribe(func(ev agent.Event) {
			if ev.Type == agent.EventTurnStart && ev.Cause == agent.CausePrompt {
				o.Rebind(run)
			}
		})
	}
	adv.Start()
	return run, nil
}

// Stop stops the advisor, then the host (which waits for a run it
// resumed), and returns what the advisor spent; a nil run spent nothing.
// The caller must not hold a lock the agent's subscribers take: that
// run's events go through them.
func (r *AgentRun) Stop() Spent {
	if r == nil {
		return Spent{}
	}
	r.unsub()
	spent := r.Advisor.Stop()
	r.host.Close()
	return spent
}

// agentRef names the agent's model; the zero Ref when there is none.
func (c *Config) agentRef() llm.Ref {
	if c.AgentModel != nil {
		if m := c.AgentModel(); m != nil {
			return m.Ref()
		}
	}
	return llm.Ref{}
}

// agentPrice prices the agent's model.
func (c *Config) agentPrice() llm.Price {
	if c.AgentModel != nil {
		if m := c.AgentModel(); m != nil {
			return m.Info.Price
		}
	}
	return llm.Price{}
}
