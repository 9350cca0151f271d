package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
)

// serveCmd is `vigil serve`: a fleet worker (docs/fleet.md) reviewing one
// tenant's sessions from NATS JetStream. It is registered in cliArgs as
//
//	Serve serveCmd `cmd:"" help:"Run a fleet worker: review a tenant's sessions from NATS JetStream and publish the notes back."`
type serveCmd struct {
	NATS string `name:"nats" required:"" placeholder:"URL" help:"The NATS server(s) to join, as NATS clients take them (nats://host:4222, tls://host:4222, comma-separated)."`
	natsFlags
	Tenant      string        `default:"default" help:"The tenant whose sessions to review (a subject token: letters, digits, - and _)."`
	Reviewer    string        `enum:"rules,model,periodic" default:"rules" help:"The reviewer: rules (vigil's zero-token detectors, no model), model (an advisor model reviewing every step; it has no workspace tools: a fleet worker has no workspace, only the steps it is sent) or periodic (a review of the session's steps on the model every advisor.periodic.everyToolCalls tool calls, one correction steered back)."`
	Model       string        `placeholder:"REF" help:"With --reviewer model or periodic: the advisor model (provider/model); default modelRoles.advisor of the user's settings."`
	Gate        string        `enum:",off,rules" default:"" help:"With --reviewer model: rules makes the model review only steps vigil's detectors flag; default advisor.gate of the user's settings."`
	ModelsFile  string        `name:"models-file" type:"path" placeholder:"PATH" help:"models.yml to read instead of the agent folder's (providers, keys, prices)."`
	Listen      string        `placeholder:"ADDR" help:"Serve /healthz and Prometheus /metrics on ADDR (host:port)."`
	Backlog     int64         `default:"1000000" help:"The steps the tenant's stream keeps, reviewed or not (the backlog while no worker runs); the oldest go first."`
	LeaseTTL    time.Duration `name:"lease-ttl" default:"10s" help:"How long a dead worker's sessions stay owned before another worker takes them over."`
	UsageMaxAge time.Duration `name:"usage-max-age" default:"720h" help:"How long the tenant's usage stream keeps each review's usage (vigil stats --fleet reads it)."`
}

func (c *serveCmd) Run(e *env) error {
	if !fleet.ValidName(c.Tenant) {
		return fmt.Errorf("serve: --tenant %q: want letters, digits, - and _", c.Tenant)
	}
	// The reviewer first: a model that does not resolve is said before
	// any connection is tried.
	factory, price, err := c.reviewer(e)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	nc, err := c.auth().Dial(c.NATS, "vigil serve ("+c.Tenant+")", nats.MaxReconnects(-1))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("serve: jetstream: %w", err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }

	metrics := fleet.NewMetrics(c.Tenant, js, price, logf)
	wopts := fleet.WorkerOptions{
		Tenant:     c.Tenant,
		Limits:     fleet.Limits{MaxSteps: c.Backlog, LeaseTTL: c.LeaseTTL},
		Reviewer:   factory,
		OnReviewed: metrics.Reviewed,
		Logf:       logf,
		// The agents redact what they publish; the notes and answers
		// are redacted again here, should a reviewer quote a secret of
		// the worker's environment.
		Redactor: history.NewRedactor(os.Environ(), nil),
	}
	w, err := fleet.NewWorker(nc, wopts)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	metrics.Watch(w)

	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	setup, cancelSetup := context.WithTimeout(ctx, 30*time.Second)
	err = fleet.EnsureUsage(setup, js, c.Tenant, fleet.UsageLimits{MaxAge: c.UsageMaxAge})
	cancelSetup()
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if c.Listen != "" {
		ln, err := net.Listen("tcp", c.Listen)
		if err != nil {
			return fmt.Errorf("serve: --listen: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", metrics.Handler())
		mux.HandleFunc("/healthz", func(rw http.ResponseWriter, _ *http.Request) {
			if !nc.IsConnected() {
				http.Error(rw, "nats: "+nc.Status().String(), http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(rw, "ok")
		})
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer func() {
			sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer scancel()
			_ = srv.Shutdown(sctx)
		}()
		fmt.Fprintf(e.stdout, "vigil serve: health and metrics on http://%s\n", ln.Addr())
	}
	fmt.Fprintf(e.stdout, "vigil serve: worker %s reviewing tenant %s from %s\n", w.ID(), c.Tenant, fleet.HideCredentials(nc.ConnectedUrl()))
	if err := w.Run(ctx); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// reviewer builds the sessions' reviewers of --reviewer, and the price
// table their usage is priced at (no price for the rules reviewer, which
// spends nothing).
func (c *serveCmd) reviewer(e *env) (fleet.ReviewerFactory, func(string) (llm.Price, bool), error) {
	switch {
	case c.Reviewer == "rules" && (c.Model != "" || c.Gate != ""):
		return nil, nil, errors.New("--model and --gate go with --reviewer model")
	case c.Reviewer == "rules":
		return fleet.RulesFactory(rules.DefaultSettings()).Reviewers(), func(string) (llm.Price, bool) { return llm.Price{}, false }, nil
	case c.Reviewer == "periodic" && c.Gate != "":
		return nil, nil, errors.New("--gate goes with --reviewer model")
	}
	cfg, res, err := c.advisorConfig(e)
	if err != nil {
		return nil, nil, err
	}
	model, err := res.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("advisor model %s: %w", res.Ref(), err)
	}
	price := func(model string) (llm.Price, bool) {
		r, err := cfg.Registry.Resolve(model)
		if err != nil {
			return llm.Price{}, false
		}
		return r.Info.Price, true
	}
	if c.Reviewer == "periodic" {
		f, err := c.periodicReviewer(e, cfg, res, model)
		return f, price, err
	}
	if c.Gate != "" {
		s := *cfg.Settings
		s.Advisor.Gate = c.Gate
		cfg.Settings = &s
	}
	return cfg.Reviewers(res, e.stderr), price, nil
}

// periodicReviewer builds the sessions' periodic advisors of --reviewer
// periodic: the user's advisor.periodic settings, forks on the advisor
// model, the transcript rendered as the advisor renders it with the
// worker's secrets redacted.
func (c *serveCmd) periodicReviewer(e *env, cfg *supervise.Config, res *models.Resolved, model llm.Model) (fleet.ReviewerFactory, error) {
	if p := cfg.Settings.Advisor.Periodic; p.EveryToolCalls == 0 && p.EveryMinutes == 0 {
		return nil, errors.New("--reviewer periodic: advisor.periodic.everyToolCalls and everyMinutes are both 0, so no review would run; set either above 0")
	}
	redactor := cfg.Redactor
	f, err := fleet.PeriodicFactory(fleet.PeriodicConfig{
		Model:          model,
		Ref:            res.Ref(),
		Render:         func(es []session.Entry) string { return history.Render(es, history.AdvisorOptions(redactor)) },
		Redact:         redactor.Redact,
		AllowInjection: cfg.Settings.Advisor.AllowPromptInjection,
		Options: func(info fleet.SessionInfo) advisor.PeriodicOptions {
			return cfg.PeriodicOptions(func(format string, args ...any) {
				fmt.Fprintf(e.stderr, "vigil serve: session %s: %s\n", info.Session, fmt.Sprintf(format, args...))
			})
		},
	})
	if err != nil {
		return nil, fmt.Errorf("--reviewer periodic: %w", err)
	}
	return f, nil
}

// advisorConfig loads the user's settings, models and WATCHDOG.yml
// roster as vigil's agent does (no project: a worker serves many) and
// resolves the advisor model as the agent resolves its own: --model, or
// modelRoles.advisor.
func (c *serveCmd) advisorConfig(e *env) (*supervise.Config, *models.Resolved, error) {
	agentDir, err := e.agentDir()
	if err != nil {
		return nil, nil, err
	}
	s, err := config.Load(config.Options{AgentDir: agentDir})
	if err != nil {
		return nil, nil, err
	}
	reg, err := e.registry(c.ModelsFile)
	if err != nil {
		return nil, nil, err
	}
	roster, err := config.LoadRoster(config.RosterOptions{AgentDir: agentDir})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range roster.Warnings {
		fmt.Fprintf(e.stderr, "vigil serve: warning: %s\n", w)
	}
	cfg := &supervise.Config{
		Settings: s, Registry: reg, ModelRef: c.Model, Roster: roster, AgentDir: agentDir,
		// The redactor hides the worker's environment's secrets and the
		// keys it holds in everything the model is sent (the steps come
		// from agents whose output may quote them).
		Redactor: history.NewRedactor(os.Environ(), reg.Secrets()),
		Logf:     func(format string, args ...any) { fmt.Fprintf(e.stderr, "vigil serve: "+format+"\n", args...) },
	}
	res, err := cfg.Resolve(s)
	if errors.Is(err, supervise.ErrNoModel) {
		return nil, nil, fmt.Errorf("--reviewer %s: no advisor model: pass --model provider/model, or set modelRoles.advisor in %s", c.Reviewer, config.UserFile(agentDir))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--reviewer %s: %w", c.Reviewer, err)
	}
	return cfg, res, nil
}
