package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/llm"
)

// TestUsageStream publishes usage records to a real nats-server and reads
// them back whole, from a time, deduplicated by message id, and summed.
func TestUsageStream(t *testing.T) {
	s := startServer(t)
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
		{Tenant: "acme", Session: "s1", Seq: 1, Delivered: 1, Time: t0, Models: []ModelSpend{{Model: "anthropic/a", Usage: llm.Usage{Input: 100, Output: 10}, Cost: 0.5}}},
		{Tenant: "acme", Session: "s1", Seq: 2, Delivered: 1, Time: t0.Add(time.Minute), Models: []ModelSpend{
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
