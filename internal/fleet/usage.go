package fleet

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/llm"
)

// UsageSubject is the subject of a session's usage records.
func UsageSubject(tenant, sess string) string { return "vigil." + tenant + ".usage." + sess }

// UsageStream names the tenant's stream of usage records.
func UsageStream(tenant string) string { return "VIGIL_" + tenant + "_USAGE" }

// UsageLimits bound what a tenant's usage stream keeps. The zero value
// of each field means its default.
type UsageLimits struct {
	// MaxAge bounds how long a record is kept. Default 30 days.
	MaxAge time.Duration
	// MaxBytes bounds the stream's size; the oldest records go first.
	// Default 1 GiB.
	MaxBytes int64
	// Memory keeps the stream in memory instead of files (tests).
	Memory bool
}

func (l UsageLimits) withDefaults() UsageLimits {
	if l.MaxAge <= 0 {
		l.MaxAge = 30 * 24 * time.Hour
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 1 << 30
	}
	return l
}

// EnsureUsage creates, or updates to limits, the tenant's stream of usage
// records (a worker's setup, beside [Ensure]).
func EnsureUsage(ctx context.Context, js jetstream.JetStream, tenant string, limits UsageLimits) error {
	if err := checkNames(tenant, ""); err != nil {
		return err
	}
	l := limits.withDefaults()
	storage := jetstream.FileStorage
	if l.Memory {
		storage = jetstream.MemoryStorage
	}
	_, err := retried(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		return js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        UsageStream(tenant),
			Description: "vigil fleet: what the reviews of tenant " + tenant + "'s sessions spent, by model",
			Subjects:    []string{UsageSubject(tenant, "*")},
			Retention:   jetstream.LimitsPolicy,
			Discard:     jetstream.DiscardOld,
			MaxAge:      l.MaxAge,
			MaxBytes:    l.MaxBytes,
			Duplicates:  10 * time.Minute,
			Storage:     storage,
		})
	})
	if err != nil {
		return fmt.Errorf("fleet: stream %s: %w", UsageStream(tenant), err)
	}
	return nil
}

// ModelSpend is what one model spent in a review.
type ModelSpend struct {
	// Model names it as provider/model.
	Model string    `json:"model"`
	Usage llm.Usage `json:"usage"`
	// Cost is in US dollars, at the worker's price table.
	Cost float64 `json:"cost"`
	// Unpriced says the worker knew no price for the model: Cost is 0.
	Unpriced bool `json:"unpriced,omitempty"`
}

// UsageRecord is the message a worker publishes on [UsageSubject] for a
// review that spent tokens.
type UsageRecord struct {
	Tenant  string `json:"tenant"`
	Session string `json:"session"`
	// Seq is the step reviewed; Delivered counts its deliveries (a step
	// reviewed again after a worker died spent again, and is recorded
	// again).
	Seq       uint64 `json:"seq"`
	Delivered uint64 `json:"delivered,omitempty"`
	// Notes counts the notes the review published ([Reviewed.Notes]).
	Notes  int          `json:"notes,omitempty"`
	Models []ModelSpend `json:"models"`
	// Time is when the review ended.
	Time time.Time `json:"time"`
	// Worker is the reviewing worker's id.
	Worker string `json:"worker,omitempty"`
}

// MsgID is the record's message id: one record per delivery of a step.
func (r UsageRecord) MsgID() string { return fmt.Sprintf("%s.%d.%d", r.Session, r.Seq, r.Delivered) }

// PublishUsage publishes r to its session's usage subject and waits for
// the stream's ack.
func PublishUsage(ctx context.Context, js jetstream.JetStream, r UsageRecord) error {
	if err := checkNames(r.Tenant, r.Session); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("fleet: usage record: %w", err)
	}
	if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: UsageSubject(r.Tenant, r.Session), Data: data}, jetstream.WithMsgID(r.MsgID())); err != nil {
		return fmt.Errorf("fleet: publishing usage of %s step %d: %w", r.Session, r.Seq, err)
	}
	return nil
}

// ReadUsage reads the tenant's usage records made at or after since (the
// zero time: all kept), up to the last one stored when it is called.
func ReadUsage(ctx context.Context, js jetstream.JetStream, tenant string, since time.Time) ([]UsageRecord, error) {
	if err := checkNames(tenant, ""); err != nil {
		return nil, err
	}
	st, err := js.Stream(ctx, UsageStream(tenant))
	if err != nil {
		return nil, fmt.Errorf("fleet: stream %s: %w", UsageStream(tenant), err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("fleet: stream %s: %w", UsageStream(tenant), err)
	}
	last := info.State.LastSeq
	if info.State.Msgs == 0 || info.State.LastTime.Before(since) {
		return nil, nil
	}
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	if !since.IsZero() {
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &since
	}
	cons, err := st.OrderedConsumer(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("fleet: reading %s: %w", UsageStream(tenant), err)
	}
	var out []UsageRecord
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("fleet: reading %s: %w", UsageStream(tenant), err)
		}
		batch, err := cons.Fetch(1000, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return nil, fmt.Errorf("fleet: reading %s: %w", UsageStream(tenant), err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			meta, err := m.Metadata()
			if err != nil {
				return nil, fmt.Errorf("fleet: reading %s: %w", UsageStream(tenant), err)
			}
			var r UsageRecord
			if err := json.Unmarshal(m.Data(), &r); err == nil && r.Tenant == tenant {
				out = append(out, r)
			}
			if meta.Sequence.Stream >= last || meta.NumPending == 0 {
				return out, nil
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return nil, fmt.Errorf("fleet: reading %s: %w", UsageStream(tenant), err)
		}
		if n == 0 {
			return out, nil // nothing more within the wait: what was there is read
		}
	}
}

// UsageSummary adds up usage records.
type UsageSummary struct {
	// Sessions counts the sessions with a record; Reviews the records
	// (reviews that spent tokens).
	Sessions int `json:"sessions"`
	Reviews  int `json:"reviews"`
	// Usage and Cost are the sums over every model.
	Usage llm.Usage `json:"usage"`
	Cost  float64   `json:"cost"`
	// Models are the sums by model, the costliest first.
	Models []ModelTotal `json:"models"`
	// BySession are the sums by session, the costliest first (then the
	// most tokens, then by id).
	BySession []SessionTotal `json:"by_session"`
	// First and Last are the times of the first and last record.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
}

// ModelTotal is one model's share of a [UsageSummary].
type ModelTotal struct {
	Model string `json:"model"`
	// Reviews counts the reviews the model spent in.
	Reviews int       `json:"reviews"`
	Usage   llm.Usage `json:"usage"`
	Cost    float64   `json:"cost"`
	// Unpriced counts the reviews whose worker knew no price for it.
	Unpriced int `json:"unpriced,omitempty"`
}

// SessionTotal is one session's share of a [UsageSummary].
type SessionTotal struct {
	Session string `json:"session"`
	// Reviews counts the session's records (its reviews that spent
	// tokens); Notes the notes they published.
	Reviews int       `json:"reviews"`
	Notes   int       `json:"notes"`
	Usage   llm.Usage `json:"usage"`
	Cost    float64   `json:"cost"`
	// Unpriced counts the reviews with a model the worker had no price
	// for.
	Unpriced int `json:"unpriced,omitempty"`
	// First and Last are the times of the session's first and last
	// record.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
}

// SummarizeUsage adds up records by model and by session.
func SummarizeUsage(records []UsageRecord) UsageSummary {
	var s UsageSummary
	bySession := map[string]*SessionTotal{}
	byModel := map[string]*ModelTotal{}
	for _, r := range records {
		st := bySession[r.Session]
		if st == nil {
			st = &SessionTotal{Session: r.Session, First: r.Time, Last: r.Time}
			bySession[r.Session] = st
		}
		st.Reviews++
		st.Notes += r.Notes
		if r.Time.Before(st.First) {
			st.First = r.Time
		}
		if r.Time.After(st.Last) {
			st.Last = r.Time
		}
		unpriced := false
		s.Reviews++
		if s.First.IsZero() || r.Time.Before(s.First) {
			s.First = r.Time
		}
		if r.Time.After(s.Last) {
			s.Last = r.Time
		}
		for _, m := range r.Models {
			t := byModel[m.Model]
			if t == nil {
				t = &ModelTotal{Model: m.Model}
				byModel[m.Model] = t
			}
			t.Reviews++
			t.Usage = t.Usage.Add(m.Usage)
			t.Cost += m.Cost
			if m.Unpriced {
				t.Unpriced++
				unpriced = true
			}
			s.Usage = s.Usage.Add(m.Usage)
			s.Cost += m.Cost
			st.Usage = st.Usage.Add(m.Usage)
			st.Cost += m.Cost
		}
		if unpriced {
			st.Unpriced++
		}
	}
	s.Sessions = len(bySession)
	for _, st := range bySession {
		s.BySession = append(s.BySession, *st)
	}
	slices.SortFunc(s.BySession, func(a, b SessionTotal) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(b.Usage.Total(), a.Usage.Total()), cmp.Compare(a.Session, b.Session))
	})
	for _, t := range byModel {
		s.Models = append(s.Models, *t)
	}
	slices.SortFunc(s.Models, func(a, b ModelTotal) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(a.Model, b.Model))
	})
	return s
}
