package fleet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm"
)

// TestUsageStream publishes usage records to a real nats-server and reads
// them back whole, from a time, deduplicated by message id, and summed.
func TestUsageStream(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := EnsureUsage(ctx, js, "acme", UsageLimits{Memory: true}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadUsage(ctx, js, "acme", time.Time{}); err != nil || len(got) != 0 {
		t.Fatalf("empty stream read as %v, %v", got, err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	records := []UsageRecord{
		{Tenant: "acme", Session: "s1", Seq: 1, Delivered: 1, Notes: 1, Time: t0, Models: []ModelSpend{{Model: "anthropic/a", Usage: llm.Usage{Input: 100, Output: 10}, Cost: 0.5}}},
		{Tenant: "acme", Session: "s1", Seq: 2, Delivered: 1, Notes: 2, Time: t0.Add(time.Minute), Models: []ModelSpend{
			{Model: "anthropic/a", Usage: llm.Usage{Input: 50, Output: 5, CacheRead: 7}, Cost: 0.25},
			{Model: "openai/b", Usage: llm.Usage{Input: 1, Output: 1}, Unpriced: true},
		}},
		{Tenant: "acme", Session: "s2", Seq: 1, Delivered: 1, Time: t0.Add(2 * time.Minute), Models: []ModelSpend{{Model: "openai/b", Usage: llm.Usage{Input: 3, Output: 2}}}},
	}
	for _, r := range records {
		if err := PublishUsage(ctx, js, r); err != nil {
			t.Fatal(err)
		}
	}
	// A retried publish of the same review is dropped.
	if err := PublishUsage(ctx, js, records[0]); err != nil {
		t.Fatal(err)
	}
	got, err := ReadUsage(ctx, js, "acme", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Session != "s1" || got[2].Session != "s2" || !got[1].Models[1].Unpriced {
		t.Fatalf("read %+v", got)
	}
	sum := SummarizeUsage(got)
	if sum.Sessions != 2 || sum.Reviews != 3 || sum.Cost != 0.75 || sum.Usage != (llm.Usage{Input: 154, Output: 18, CacheRead: 7}) {
		t.Fatalf("summary %+v", sum)
	}
	if len(sum.Models) != 2 || sum.Models[0].Model != "anthropic/a" || sum.Models[0].Reviews != 2 || sum.Models[1].Unpriced != 1 || sum.Models[1].Usage.Input != 4 {
		t.Fatalf("by model %+v", sum.Models)
	}
	if !sum.First.Equal(t0) || !sum.Last.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("first %v last %v", sum.First, sum.Last)
	}
	// By session, the costliest first, with the notes the records carried
	// through the stream.
	if len(sum.BySession) != 2 {
		t.Fatalf("by session %+v", sum.BySession)
	}
	s1, s2 := sum.BySession[0], sum.BySession[1]
	if s1.Session != "s1" || s1.Reviews != 2 || s1.Notes != 3 || s1.Cost != 0.75 || s1.Unpriced != 1 ||
		s1.Usage != (llm.Usage{Input: 151, Output: 16, CacheRead: 7}) || !s1.First.Equal(t0) || !s1.Last.Equal(t0.Add(time.Minute)) {
		t.Fatalf("s1 %+v", s1)
	}
	if s2.Session != "s2" || s2.Reviews != 1 || s2.Notes != 0 || s2.Cost != 0 || s2.Unpriced != 0 || s2.Usage != (llm.Usage{Input: 3, Output: 2}) {
		t.Fatalf("s2 %+v", s2)
	}
	// From a time: the stream's own times (when each record was stored)
	// count, so a bound after all of them reads nothing and one before
	// reads all.
	if got, err := ReadUsage(ctx, js, "acme", time.Now().Add(time.Hour)); err != nil || len(got) != 0 {
		t.Fatalf("since the future: %v, %v", got, err)
	}
	if got, err := ReadUsage(ctx, js, "acme", time.Now().Add(-time.Hour)); err != nil || len(got) != 3 {
		t.Fatalf("since an hour ago: %d records, %v", len(got), err)
	}
	if _, err := ReadUsage(ctx, js, "globex", time.Time{}); err == nil {
		t.Fatal("reading a tenant with no usage stream: no error")
	}
}

// TestSummarizeUsageBySession orders sessions by cost, then tokens, then
// id, and counts a review with one unpriced model once.
func TestSummarizeUsageBySession(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rec := func(sess string, at time.Duration, notes int, models ...ModelSpend) UsageRecord {
		return UsageRecord{Tenant: "acme", Session: sess, Time: t0.Add(at), Notes: notes, Models: models}
	}
	sum := SummarizeUsage([]UsageRecord{
		rec("b", 0, 0, ModelSpend{Model: "m", Usage: llm.Usage{Input: 5}}),
		rec("c", time.Minute, 1, ModelSpend{Model: "m", Usage: llm.Usage{Input: 1}, Cost: 0.01}),
		rec("a", 2*time.Minute, 0, ModelSpend{Model: "m", Usage: llm.Usage{Input: 5}}),
		rec("d", 3*time.Minute, 0, ModelSpend{Model: "m", Usage: llm.Usage{Input: 9}}),
		rec("c", -time.Minute, 2, ModelSpend{Model: "x", Usage: llm.Usage{Output: 1}, Unpriced: true}, ModelSpend{Model: "y", Unpriced: true}),
	})
	var order []string
	for _, st := range sum.BySession {
		order = append(order, st.Session)
	}
	if got := strings.Join(order, " "); got != "c d a b" {
		t.Fatalf("order %q, want c d a b (cost, then tokens, then id)", got)
	}
	c := sum.BySession[0]
	if c.Reviews != 2 || c.Notes != 3 || c.Unpriced != 1 || c.Usage != (llm.Usage{Input: 1, Output: 1}) ||
		!c.First.Equal(t0.Add(-time.Minute)) || !c.Last.Equal(t0.Add(time.Minute)) {
		t.Fatalf("c %+v", c)
	}
	if sum.Sessions != 4 || sum.Reviews != 5 {
		t.Fatalf("summary %+v", sum)
	}
}
