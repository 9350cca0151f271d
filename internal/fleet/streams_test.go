package fleet

import (
	"context"
	"fmt"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/vigil-dev/vigil/internal/natstest"
)

// TestStreamsLiftTheServersConsumerCap: on a server whose default is two
// consumers a stream, the tenant's streams hold as many as
// Limits.MaxConsumers says (every session keeps one for a day, so the
// server's default of 1,000 would cap a tenant at 1,000 sessions a day),
// and no more.
func TestStreamsLiftTheServersConsumerCap(t *testing.T) {
	opts := natstest.Options(t)
	opts.JetStreamLimits = server.JSLimitOpts{DefaultMaxConsumers: 2}
	s := natstest.StartWith(t, opts)
	nc := connect(t, s)
	ensureWith(t, nc, "acme", Limits{MaxConsumers: 5, Memory: true})
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, stream := range []string{StepStream("acme"), NoteStream("acme")} {
		for i := range 6 {
			_, err := js.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: fmt.Sprintf("c%d", i), AckPolicy: jetstream.AckExplicitPolicy})
			if i < 5 && err != nil {
				t.Fatalf("%s: consumer %d of 5: %v", stream, i+1, err)
			}
			if i == 5 && err == nil {
				t.Errorf("%s: a sixth consumer was made over Limits.MaxConsumers 5", stream)
			}
		}
	}
	ensureWith(t, nc, "globex", Limits{Memory: true})
	st, err := js.Stream(ctx, StepStream("globex"))
	if err != nil || st.CachedInfo().Config.MaxConsumers != 1_000_000 {
		t.Errorf("default: %v, %v; want 1,000,000 consumers a stream", st, err)
	}
}
