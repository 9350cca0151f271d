package fleet

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/vigil-dev/vigil/llm"
)

// Metrics are a worker's Prometheus metrics (vigil serve --listen's
// /metrics) and its usage records: each review's latency, tokens and
// cost by model, and the worker's [Stats]. [Metrics.Reviewed] is the
// worker's [WorkerOptions.OnReviewed].
type Metrics struct {
	reg    *prometheus.Registry
	labels prometheus.Labels
	js     jetstream.JetStream
	price  func(model string) (llm.Price, bool)
	logf   func(format string, args ...any)

	latency  prometheus.Histogram
	tokens   *prometheus.CounterVec
	costs    *prometheus.CounterVec
	unpriced *prometheus.CounterVec

	mu     sync.Mutex
	worker string
}

// NewMetrics makes the metrics of a worker of tenant: usage records go to
// the tenant's usage stream through js (a failure is logged with logf:
// the metrics count it anyway), each model's spend priced by price.
func NewMetrics(tenant string, js jetstream.JetStream, price func(model string) (llm.Price, bool), logf func(format string, args ...any)) *Metrics {
	labels := prometheus.Labels{"tenant": tenant}
	m := &Metrics{
		reg: prometheus.NewRegistry(), labels: labels, js: js, price: price, logf: logf,
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "vigil_fleet_review_latency_seconds", Help: "From a step's publication to its review's ack.",
			ConstLabels: labels,
			Buckets:     prometheus.ExponentialBuckets(0.001, 2, 18),
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_fleet_tokens_total", Help: "Tokens the reviews spent, by model and kind (input, output, cache_read, cache_write).",
			ConstLabels: labels,
		}, []string{"model", "kind"}),
		costs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_fleet_cost_usd_total", Help: "What the reviews cost in US dollars, by model, at the worker's price table (models.yml and the built-in catalog).",
			ConstLabels: labels,
		}, []string{"model"}),
		unpriced: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_fleet_unpriced_reviews_total", Help: "Reviews that spent tokens of a model with no price (counted at $0), by model.",
			ConstLabels: labels,
		}, []string{"model"}),
	}
	m.reg.MustRegister(m.latency, m.tokens, m.costs, m.unpriced)
	return m
}

// Reviewed counts a review, and publishes its usage record when it
// spent tokens.
func (m *Metrics) Reviewed(r Reviewed) {
	m.latency.Observe(r.Latency.Seconds())
	if len(r.Models) == 0 {
		return
	}
	m.mu.Lock()
	worker := m.worker
	m.mu.Unlock()
	rec := UsageRecord{Tenant: r.Tenant, Session: r.Session, Seq: r.Seq, Delivered: r.Delivered, Notes: r.Notes, Time: time.Now().UTC(), Worker: worker}
	for _, mu := range r.Models {
		p, ok := m.price(mu.Model)
		spend := ModelSpend{Model: mu.Model, Usage: mu.Usage, Cost: p.Cost(mu.Usage), Unpriced: !ok}
		rec.Models = append(rec.Models, spend)
		m.tokens.WithLabelValues(mu.Model, "input").Add(float64(mu.Usage.Input))
		m.tokens.WithLabelValues(mu.Model, "output").Add(float64(mu.Usage.Output))
		m.tokens.WithLabelValues(mu.Model, "cache_read").Add(float64(mu.Usage.CacheRead))
		m.tokens.WithLabelValues(mu.Model, "cache_write").Add(float64(mu.Usage.CacheWrite))
		m.costs.WithLabelValues(mu.Model).Add(spend.Cost)
		if !ok {
			m.unpriced.WithLabelValues(mu.Model).Inc()
		}
	}
	pctx, cancel := context.WithTimeout(context.Background(), DefaultPublishTimeout)
	defer cancel()
	if err := PublishUsage(pctx, m.js, rec); err != nil {
		m.logf("vigil serve: warning: %v (the metrics count it)", err)
	}
}

// Watch adds w's [Stats] to the metrics and names it in the usage
// records.
func (m *Metrics) Watch(w *Worker) {
	m.mu.Lock()
	m.worker = w.ID()
	m.mu.Unlock()
	gauge := func(name, help string, f func(Stats) float64) {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: m.labels}, func() float64 { return f(w.Stats()) }))
	}
	counter := func(name, help string, f func(Stats) float64) {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: m.labels}, func() float64 { return f(w.Stats()) }))
	}
	gauge("vigil_fleet_sessions", "Sessions this worker owns now.", func(s Stats) float64 { return float64(s.Sessions) })
	counter("vigil_fleet_sessions_taken_total", "Sessions this worker took, new or taken over.", func(s Stats) float64 { return float64(s.Taken) })
	counter("vigil_fleet_sessions_taken_over_total", "Sessions this worker took over from another.", func(s Stats) float64 { return float64(s.TakenOver) })
	counter("vigil_fleet_steps_total", "Steps received.", func(s Stats) float64 { return float64(s.Steps) })
	counter("vigil_fleet_reviews_total", "Steps reviewed and acknowledged.", func(s Stats) float64 { return float64(s.Reviews) })
	counter("vigil_fleet_notes_total", "Notes published.", func(s Stats) float64 { return float64(s.Notes) })
}

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
