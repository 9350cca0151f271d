package cli

import (
	"context"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/tools"
)

// advisorTools are the tools the advisor adds to the agent app.build
// makes: ask_advisor while an advisor with a model is on (continuous with
// modelRoles.advisor, or periodic) or a fleet serves the advisor (its
// workers say whether they have a model), and it may speak to the agent
// (advisor.allowPromptInjection), none otherwise. build adds them to the
// agent's own tools:
//
//	Tools: append(ts.Tools(), a.advisorTools()...),
//
// The tool list is fixed for the agent's life (a change would cost the
// agent's prompt cache), so after /advisor off the tool stays and answers
// that the advisor is unavailable; /advisor on in a session built without
// it adds no tool until the agent is built again.
func (a *app) advisorTools() []tools.Tool {
	a.mu.Lock()
	on, res := a.advOn, a.advisorRes
	a.mu.Unlock()
	c := a.sup()
	if !on || (!c.Fleet() && (c.RulesOnly() || (res == nil && !c.Periodic()))) || !a.settings.Advisor.AllowPromptInjection {
		return nil
	}
	return []tools.Tool{advisor.AskTool(a.consultAdvisor)}
}

// consultAdvisor asks the advisor running now for the app's agent;
// with none it is unavailable at once.
func (a *app) consultAdvisor(ctx context.Context, question string) (string, error) {
	a.mu.Lock()
	run := a.adv
	a.mu.Unlock()
	if run == nil {
		return "", advisor.ErrStopped
	}
	return run.Consult(ctx, question)
}
