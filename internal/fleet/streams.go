package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Limits bound what a tenant's streams keep. The zero value of each field
// means its default.
type Limits struct {
	// MaxSteps bounds the steps the tenant's stream keeps, reviewed or not
	// (the backlog kept while no worker runs); the oldest go first.
	// Default 1,000,000.
	MaxSteps int64
	// MaxStepsPerSession bounds the steps kept of one session (the tail a
	// worker taking the session over primes from is read from them).
	// Default 10,000.
	MaxStepsPerSession int64
	// MaxNotes bounds the notes kept. Default 1,000,000.
	MaxNotes int64
	// MaxAge bounds how long steps and notes are kept. Default 24 hours.
	MaxAge time.Duration
	// Duplicates is the window in which a repeated message id (a retried
	// step, a note of a step reviewed again) is dropped. Default 10
	// minutes.
	Duplicates time.Duration
	// LeaseTTL is how long a session stays owned by a worker that stopped
	// renewing it: a dead worker's sessions are taken over after it.
	// Default 10 seconds; at least one second.
	LeaseTTL time.Duration
	// MaxConsumers bounds the consumers of each stream: one per session
	// seen in the last MaxAge + an hour on the steps, one per connected
	// agent on the notes. Set on the streams, it lifts nats-server's
	// default of 1,000 a stream (an account's own limit still holds).
	// Default 1,000,000.
	MaxConsumers int
	// Memory keeps the streams in memory instead of files (tests).
	Memory bool
}

func (l Limits) withDefaults() Limits {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxSteps, 1_000_000)
	def(&l.MaxStepsPerSession, 10_000)
	def(&l.MaxNotes, 1_000_000)
	if l.MaxConsumers <= 0 {
		l.MaxConsumers = 1_000_000
	}
	if l.MaxAge <= 0 {
		l.MaxAge = 24 * time.Hour
	}
	if l.Duplicates <= 0 {
		l.Duplicates = 10 * time.Minute
	}
	if l.LeaseTTL <= 0 {
		l.LeaseTTL = 10 * time.Second
	}
	l.LeaseTTL = max(l.LeaseTTL, time.Second)
	return l
}

// Ensure creates, or updates to limits, the tenant's stream of steps, its
// stream of notes and its bucket of leases, and returns the bucket.
func Ensure(ctx context.Context, js jetstream.JetStream, tenant string, limits Limits) (jetstream.KeyValue, error) {
	if err := checkNames(tenant, ""); err != nil {
		return nil, err
	}
	l := limits.withDefaults()
	storage := jetstream.FileStorage
	if l.Memory {
		storage = jetstream.MemoryStorage
	}
	_, err := retried(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		return createOrUpdate(ctx, js, stepConfig(tenant, l, storage))
	})
	if err != nil {
		return nil, fmt.Errorf("fleet: stream %s: %w", StepStream(tenant), err)
	}
	_, err = retried(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		return createOrUpdate(ctx, js, noteConfig(tenant, l, storage))
	})
	if err != nil {
		return nil, fmt.Errorf("fleet: stream %s: %w", NoteStream(tenant), err)
	}
	kv, err := retried(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		return js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:         LeaseBucket(tenant),
			Description:    "vigil fleet: which worker owns each of tenant " + tenant + "'s sessions",
			TTL:            l.LeaseTTL,
			LimitMarkerTTL: l.LeaseTTL,
			Storage:        storage,
		})
	})
	if err != nil {
		return nil, fmt.Errorf("fleet: bucket %s: %w", LeaseBucket(tenant), err)
	}
	return kv, nil
}

// createOrUpdate creates the stream cfg names, or updates it when it
// exists with another configuration. A create of a stream that exists
// with the same configuration changes nothing on the server, where an
// update rewrites the stream's configuration even when it is the same:
// every worker that starts calls [Ensure], and nats-server v2.15.2 reads
// that configuration without a lock while it makes a consumer (a data
// race -race reported once in TestFaultsKillWorkers).
func createOrUpdate(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	st, err := js.CreateStream(ctx, cfg)
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return js.UpdateStream(ctx, cfg)
	}
	return st, err
}

// attemptTimeout bounds one JetStream API request of [Ensure]: a request
// or its answer lost (a server busy or restarting) is asked again rather
// than waited on until the caller's whole bound is spent.
const attemptTimeout = 5 * time.Second

// retried calls f with a context bounded by [attemptTimeout] until it
// succeeds, fails otherwise than by that bound running out, or ctx ends.
// The requests it repeats are idempotent (create or update to one
// configuration).
func retried[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		v, err := f(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return v, err
		}
	}
}

// stepConfig is the configuration of the tenant's stream of steps.
func stepConfig(tenant string, l Limits, storage jetstream.StorageType) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              StepStream(tenant),
		Description:       "vigil fleet: the steps of tenant " + tenant + "'s sessions",
		Subjects:          []string{StepSubject(tenant, "*")},
		Retention:         jetstream.LimitsPolicy,
		Discard:           jetstream.DiscardOld,
		MaxMsgs:           l.MaxSteps,
		MaxMsgsPerSubject: l.MaxStepsPerSession,
		MaxConsumers:      l.MaxConsumers,
		MaxAge:            l.MaxAge,
		Duplicates:        l.Duplicates,
		Storage:           storage,
	}
}

// noteConfig is the configuration of the tenant's stream of notes.
func noteConfig(tenant string, l Limits, storage jetstream.StorageType) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:         NoteStream(tenant),
		Description:  "vigil fleet: the advisors' notes to tenant " + tenant + "'s sessions",
		Subjects:     []string{NoteSubject(tenant, "*")},
		Retention:    jetstream.LimitsPolicy,
		Discard:      jetstream.DiscardOld,
		MaxMsgs:      l.MaxNotes,
		MaxConsumers: l.MaxConsumers,
		MaxAge:       l.MaxAge,
		Duplicates:   l.Duplicates,
		Storage:      storage,
	}
}
