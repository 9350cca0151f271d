package llm_test

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// flaky is a Model that is overloaded on its first call and then streams
// a short reply, as a provider adapter would.
type flaky struct{ calls int }

func (m *flaky) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		m.calls++
		if m.calls == 1 {
			yield(llm.Event{}, &llm.Error{Kind: llm.Overloaded, Provider: "example", Status: 529, Message: "overloaded"})
			return
		}
		for _, ev := range []llm.Event{
			{Type: llm.EventTextDelta, Text: "The tests "},
			{Type: llm.EventTextDelta, Text: "pass."},
			{Type: llm.EventUsage, Usage: llm.Usage{Input: 12, Output: 4}},
			{Type: llm.EventStop, StopReason: llm.StopEndTurn},
		} {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// A model's stream, retried when the provider is overloaded before the
// reply starts, and accumulated into one response.
func Example_retryAndAccumulate() {
	m := &flaky{}
	model := llm.WithRetry(m, llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond})
	req := llm.Request{Messages: []llm.Message{llm.UserText("Do the tests pass?")}, MaxTokens: 100}
	resp, err := llm.Accumulate(model.Stream(context.Background(), req))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(resp.Message.Text())
	fmt.Println("stop:", resp.StopReason, "tokens:", resp.Usage.Total(), "calls:", m.calls)
	// Output:
	// The tests pass.
	// stop: end_turn tokens: 16 calls: 2
}
