package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/rules"
)

// serveCmd is `vigil serve`: a fleet worker (docs/fleet.md) reviewing one
// tenant's sessions from NATS JetStream. It is registered in cliArgs as
//
//	Serve serveCmd `cmd:"" help:"Run a fleet worker: review a tenant's sessions from NATS JetStream and publish the notes back."`
type serveCmd struct {
	NATS     string        `name:"nats" required:"" placeholder:"URL" help:"The NATS server(s) to join, as NATS clients take them (nats://host:4222, tls://host:4222, comma-separated)."`
	Creds    string        `type:"existingfile" placeholder:"FILE" help:"A NATS credentials file (JWT and nkey seed)."`
	TLSCA    string        `name:"tls-ca" type:"existingfile" placeholder:"FILE" help:"Verify the server's certificate against this CA bundle."`
	TLSCert  string        `name:"tls-cert" type:"existingfile" placeholder:"FILE" help:"Present this client certificate (with --tls-key)."`
	TLSKey   string        `name:"tls-key" type:"existingfile" placeholder:"FILE" help:"The client certificate's key."`
	Tenant   string        `default:"default" help:"The tenant whose sessions to review (a subject token: letters, digits, - and _)."`
	Reviewer string        `enum:"rules" default:"rules" help:"The reviewer: rules (vigil's zero-token detectors, no model)."`
	Listen   string        `placeholder:"ADDR" help:"Serve /healthz and Prometheus /metrics on ADDR (host:port)."`
	Backlog  int64         `default:"1000000" help:"The steps the tenant's stream keeps, reviewed or not (the backlog while no worker runs); the oldest go first."`
	LeaseTTL time.Duration `name:"lease-ttl" default:"10s" help:"How long a dead worker's sessions stay owned before another worker takes them over."`
}

func (c *serveCmd) Run(e *env) error {
	if !fleet.ValidName(c.Tenant) {
		return fmt.Errorf("serve: --tenant %q: want letters, digits, - and _", c.Tenant)
	}
	opts := []nats.Option{nats.Name("vigil serve (" + c.Tenant + ")"), nats.MaxReconnects(-1)}
	if c.Creds != "" {
		opts = append(opts, nats.UserCredentials(c.Creds))
	}
	if c.TLSCA != "" {
		opts = append(opts, nats.RootCAs(c.TLSCA))
	}
	if c.TLSCert != "" || c.TLSKey != "" {
		if c.TLSCert == "" || c.TLSKey == "" {
			return errors.New("serve: --tls-cert and --tls-key go together")
		}
		opts = append(opts, nats.ClientCert(c.TLSCert, c.TLSKey))
	}
	nc, err := nats.Connect(c.NATS, opts...)
	if err != nil {
		return fmt.Errorf("serve: connecting to %s: %w", c.NATS, err)
	}
	defer nc.Close()

	reg := prometheus.NewRegistry()
	latency := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "vigil_fleet_review_latency_seconds", Help: "From a step's publication to its review's ack.",
		ConstLabels: prometheus.Labels{"tenant": c.Tenant},
		Buckets:     prometheus.ExponentialBuckets(0.001, 2, 18),
	})
	reg.MustRegister(latency)
	wopts := fleet.WorkerOptions{
		Tenant:     c.Tenant,
		Limits:     fleet.Limits{MaxSteps: c.Backlog, LeaseTTL: c.LeaseTTL},
		Factory:    fleet.RulesFactory(rules.DefaultSettings()),
		OnReviewed: func(r fleet.Reviewed) { latency.Observe(r.Latency.Seconds()) },
		Logf:       func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) },
	}
	w, err := fleet.NewWorker(nc, wopts)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	labels := prometheus.Labels{"tenant": c.Tenant}
	gauge := func(name, help string, f func(fleet.Stats) float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels}, func() float64 { return f(w.Stats()) }))
	}
	counter := func(name, help string, f func(fleet.Stats) float64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, func() float64 { return f(w.Stats()) }))
	}
	gauge("vigil_fleet_sessions", "Sessions this worker owns now.", func(s fleet.Stats) float64 { return float64(s.Sessions) })
	counter("vigil_fleet_sessions_taken_total", "Sessions this worker took, new or taken over.", func(s fleet.Stats) float64 { return float64(s.Taken) })
	counter("vigil_fleet_sessions_taken_over_total", "Sessions this worker took over from another.", func(s fleet.Stats) float64 { return float64(s.TakenOver) })
	counter("vigil_fleet_steps_total", "Steps received.", func(s fleet.Stats) float64 { return float64(s.Steps) })
	counter("vigil_fleet_reviews_total", "Steps reviewed and acknowledged.", func(s fleet.Stats) float64 { return float64(s.Reviews) })
	counter("vigil_fleet_notes_total", "Notes published.", func(s fleet.Stats) float64 { return float64(s.Notes) })

	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	if c.Listen != "" {
		ln, err := net.Listen("tcp", c.Listen)
		if err != nil {
			return fmt.Errorf("serve: --listen: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
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
	fmt.Fprintf(e.stdout, "vigil serve: worker %s reviewing tenant %s from %s\n", w.ID(), c.Tenant, nc.ConnectedUrlRedacted())
	if err := w.Run(ctx); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
