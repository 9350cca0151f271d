package agent

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// CustomRequestAborted marks a model request that a steer with
// [SteerOptions].AbortRequest aborted (displayed, not in context). It
// holds none of the reply that was cut: the model is sent the request
// again with the steer, as if the cut reply had never been. Its details
// record what the aborted request cost, {"model": "provider/id",
// "usage": {...}}, so that what adds up usage from the session (vigil
// stats) still counts it.
const CustomRequestAborted = "request_aborted"

// requestAbortedText is what a [CustomRequestAborted] entry says.
const requestAbortedText = "[model request aborted: a steering message arrived while the model answered; the request was sent again with it]"

// ask makes the step's model request. A steer with AbortRequest that
// arrives while it is in flight aborts it: the marker is written, the
// queued steers are delivered and the request is made again. One queued
// before the request goes out is delivered first. It returns the reply
// (the partial one on error, never nil), the markers written and the
// error. A user abort wins over a steer's: the run's context is checked
// first.
func (a *Agent) ask(ctx context.Context) (*llm.Response, []session.Entry, error) {
	var written []session.Entry
	for {
		a.deliverAbortingSteers()
		reqCtx, cancel := context.WithCancelCause(ctx)
		a.setInterrupt(cancel, waitRequest)
		resp, err := a.request(reqCtx)
		a.setInterrupt(nil, waitNone)
		steered := reqCtx.Err() != nil && ctx.Err() == nil
		cancel(nil)
		if err == nil || !steered {
			// A reply that arrived whole is kept even if a steer came at
			// its end: its calls are then skipped, as for any interrupt.
			return resp, written, err
		}
		if e, ok := a.recordRequestAborted(resp); ok {
			written = append(written, e)
		}
		a.deliverSteers()
	}
}

// deliverAbortingSteers delivers the queued steers if one of them has
// AbortRequest: a request about to be sent would only be aborted by it.
func (a *Agent) deliverAbortingSteers() {
	a.mu.Lock()
	pending := slices.ContainsFunc(a.steers, waitRequest.cutBy)
	a.mu.Unlock()
	if pending {
		a.deliverSteers()
	}
}

// recordRequestAborted writes the marker of a request a steer aborted and
// emits request_aborted. It reports the entry, if it was written.
func (a *Agent) recordRequestAborted(resp *llm.Response) (session.Entry, bool) {
	var usage llm.Usage
	if resp != nil {
		usage = resp.Usage
	}
	details, _ := json.Marshal(struct {
		Model string    `json:"model,omitempty"`
		Usage llm.Usage `json:"usage"`
	}{modelName(a.ref), usage})
	e, err := a.appendBody(&session.Custom{
		CustomType: CustomRequestAborted, Content: []llm.Block{llm.Text(requestAbortedText)}, Display: true, Details: details,
	})
	ev := a.event(Event{Type: EventRequestAborted, Reason: InterruptSteer, Usage: &usage, Err: err})
	if e.ID != "" {
		ev.Entry = &e
		ev.Err = nil
	}
	a.emit(ev)
	return e, e.ID != ""
}

// modelName is ref as the session records a model, "" for none.
func modelName(ref llm.Ref) string {
	if ref == (llm.Ref{}) {
		return ""
	}
	return ref.String()
}
