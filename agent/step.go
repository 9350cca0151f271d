package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
)

// request asks the model for the step's reply, streaming its text and
// thinking as message_delta events. A request refused as too long before
// anything arrived is retried once after a compaction. On error the reply
// received so far is returned with it (never nil).
func (a *Agent) request(ctx context.Context) (*llm.Response, error) {
	resp, streamed, err := a.stream(ctx)
	if err == nil || streamed || !errors.Is(err, llm.ContextTooLong) || ctx.Err() != nil || !a.compaction.Enabled {
		return resp, err
	}
	if cerr := a.compact(ctx, CompactOverflow, ""); cerr != nil {
		return resp, fmt.Errorf("%w; compacting to make it fit failed: %w", err, cerr)
	}
	resp, _, err = a.stream(ctx)
	return resp, err
}

// stream makes one model request from the view. streamed says whether any
// event arrived.
func (a *Agent) stream(ctx context.Context) (resp *llm.Response, streamed bool, err error) {
	req := llm.Request{
		System:    a.system,
		Messages:  a.view.messages(),
		Tools:     a.defs,
		MaxTokens: a.maxTokens,
		Thinking:  a.thinking,
	}
	var acc llm.Accumulator
	stopped := false
	for ev, serr := range a.model.Stream(ctx, req) {
		if serr != nil {
			err = serr
			break
		}
		streamed = true
		if aerr := acc.Add(ev); aerr != nil {
			err = &llm.Error{Kind: llm.Truncated, Message: aerr.Error(), Err: aerr}
			break
		}
		switch ev.Type {
		case llm.EventTextDelta:
			a.emit(a.event(Event{Type: EventMessageDelta, Delta: DeltaText, Text: ev.Text}))
		case llm.EventThinkingDelta:
			a.emit(a.event(Event{Type: EventMessageDelta, Delta: DeltaThinking, Text: ev.Text}))
		case llm.EventStop:
			stopped = true
		}
	}
	resp = acc.Response()
	a.addUsage(resp.Usage)
	if err == nil && !stopped {
		err = &llm.Error{Kind: llm.Truncated, Message: "stream ended without a stop event"}
	}
	if err != nil && ctx.Err() != nil {
		// Report the interrupt, not how the transport noticed it.
		err = context.Cause(ctx)
	}
	return resp, streamed, err
}

// addUsage adds a reply's usage to the agent's totals.
func (a *Agent) addUsage(u llm.Usage) {
	if u == (llm.Usage{}) {
		return
	}
	a.mu.Lock()
	a.usage = a.usage.Add(u)
	a.mu.Unlock()
}
