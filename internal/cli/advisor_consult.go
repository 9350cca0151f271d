package cli

import (
	"context"
	"fmt"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/sidecar"
	"github.com/vigil-dev/vigil/llm"
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
	if !on || (!a.fleetOn() && (a.rulesOnly() || (res == nil && !a.periodic()))) || !a.settings.Advisor.AllowPromptInjection {
		return nil
	}
	return []tools.Tool{advisor.AskTool(a.consultAdvisor)}
}

// The sidecar's advisors answer the questions of vigil mcp.
var (
	_ sidecar.Consulter = (*advisor.Runtime)(nil)
	_ sidecar.Consulter = periodicAdvisor{}
	_ sidecar.Consulter = (*fleetRun)(nil)
)

// consultAdvisor asks the advisor running now for the app's agent;
// with none it is unavailable at once.
func (a *app) consultAdvisor(ctx context.Context, question string) (string, error) {
	a.mu.Lock()
	run := a.adv
	a.mu.Unlock()
	switch {
	case run == nil:
		return "", advisor.ErrStopped
	case run.proster != nil:
		return run.proster.Consult(ctx, question)
	case run.per != nil:
		return run.per.Consult(ctx, question)
	case run.fleet != nil:
		return run.fleet.Consult(ctx, question)
	}
	return run.rt.Consult(ctx, question)
}

// consultsStatus is /advisor status's account of the agent's questions,
// counted apart from the reviews: "" when there were none.
func consultsStatus(answered, failed, refused int, u llm.Usage) string {
	if answered+failed+refused == 0 {
		return ""
	}
	return fmt.Sprintf(" Consults (the agent's questions): %d answered, %d failed, %d refused; %s input, %s cache read, %s output.",
		answered, failed, refused, group(u.Input+u.CacheWrite), group(u.CacheRead), group(u.Output))
}
