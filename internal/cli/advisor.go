package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/config"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/session"
)

// advisorRun is the advisor of one agent: its host and its runtime.
type advisorRun struct {
	host *advisorhost.Host
	rt   *advisor.Runtime
}

// stop stops the runtime, then the host (which waits for a run it
// resumed). The caller must not hold app.mu: that run's events go through
// app.publish.
func (r *advisorRun) stop() {
	if r == nil {
		return
	}
	r.rt.Stop()
	r.host.Close()
}

// forwardHook is a hook whose target is set once the agent exists: the
// agent takes its hooks at construction, and the host needs the agent.
type forwardHook struct {
	mu sync.Mutex
	h  agent.Hook
}

func (f *forwardHook) set(h agent.Hook) {
	f.mu.Lock()
	f.h = h
	f.mu.Unlock()
}

func (f *forwardHook) Boundary(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
	f.mu.Lock()
	h := f.h
	f.mu.Unlock()
	if h == nil {
		return nil
	}
	return h.Boundary(ctx, b)
}

// setupAdvisor decides whether the app runs an advisor: on with flag or
// advisor.enabled, its model from ref or modelRoles.advisor. Enabled with
// no model that resolves, it warns on stderr and leaves the advisor off.
func (a *app) setupAdvisor(flag bool, ref string) {
	if !flag && !a.settings.Advisor.Enabled {
		return
	}
	if ref == "" {
		r, ok := a.settings.Role(config.RoleAdvisor)
		if !ok {
			fmt.Fprintln(a.e.stderr, "vigil: warning: the advisor is enabled but has no model (pass --advisor-model REF or set modelRoles.advisor); running without it")
			return
		}
		ref = r.String()
	}
	res, err := a.registry.Resolve(ref)
	if err == nil {
		_, err = res.Open()
	}
	if err != nil {
		fmt.Fprintf(a.e.stderr, "vigil: warning: advisor model %s: %v; running without the advisor\n", ref, err)
		return
	}
	a.advisorRes = res
}

// startAdvisor makes and starts the advisor of ag, whose hook target is
// fwd. It returns nil when the advisor is off.
func (a *app) startAdvisor(ag *agent.Agent, sess *session.Session, fwd *forwardHook) (*advisorRun, error) {
	res := a.advisorRes
	if res == nil {
		return nil, nil
	}
	model, err := res.Open()
	if err != nil {
		return nil, fmt.Errorf("advisor model: %w", err)
	}
	host := advisorhost.New(ag, sess)
	rt, err := advisor.New(advisor.Options{
		Model:       model,
		Host:        host,
		Roots:       []string{a.project, a.cwd},
		ImmuneTurns: immuneTurns(a.settings.Advisor.ImmuneTurns),
		OnWarning:   func(s string) { fmt.Fprintln(a.e.stderr, "vigil: advisor: "+s) },
	})
	if err != nil {
		host.Close()
		return nil, err
	}
	// advisor.syncBacklog: at a step end the primary waits while that
	// many steps are unreviewed, at most advisor.syncTimeoutSeconds.
	host.SetSync(a.settings.Advisor.SyncBacklog.Threshold(), a.settings.Advisor.SyncTimeout(), rt.WaitBacklogBelow)
	fwd.set(host.Hook())
	host.Forward(rt.Notify)
	rt.Start(context.Background())
	return &advisorRun{host: host, rt: rt}, nil
}

// immuneTurns maps advisor.immuneTurns (0: every note may interrupt) to
// advisor.Options.ImmuneTurns (0: the default; negative: off).
func immuneTurns(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

func cmdAdvisor(_ context.Context, a *app, args string) (string, error) {
	switch args {
	case "", "status":
	default:
		return "", fmt.Errorf("/advisor: unknown argument %q (try /advisor status)", args)
	}
	a.mu.Lock()
	run, res := a.adv, a.advisorRes
	a.mu.Unlock()
	if run == nil || res == nil {
		return "advisor off", nil
	}
	st := run.rt.Status()
	return fmt.Sprintf("advisor on (%s): %d reviews, %d failures, %d tokens in, %d tokens out",
		res.Ref(), st.Reviews, st.Failures, st.Usage.PromptTokens(), st.Usage.Output), nil
}
