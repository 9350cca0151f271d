package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// runTurn runs one turn: its opening message, then steps until the model
// stops calling tools and nothing is delivered at the last boundary. It
// returns the error that ended the turn early, if any. The caller holds
// the busy token.
func (a *Agent) runTurn(ctx context.Context, cause TurnCause, opening session.Body) error {
	e, err := a.appendBody(opening)
	if e.ID == "" {
		return fmt.Errorf("agent: write %s: %w", cause, err)
	}
	a.mu.Lock()
	a.turn++
	a.step = 0
	a.mu.Unlock()
	a.compactFailed = false
	if cause == CauseFollowUp {
		a.emit(a.event(Event{Type: EventFollowUpDelivered, Entry: &e}))
	}
	a.emit(a.event(Event{Type: EventTurnStart, Cause: cause, Entry: &e}))
	// Steers queued while the agent was idle or between turns go before
	// the first request.
	a.deliverSteers()

	var stop llm.StopReason
	for {
		res, err := a.runStep(ctx)
		stop = res.stop
		if err != nil {
			a.emit(a.event(Event{Type: EventTurnEnd, StopReason: stop, Err: err}))
			return err
		}
		if res.final && !res.continued {
			break
		}
	}
	a.emit(a.event(Event{Type: EventTurnEnd, StopReason: stop}))
	return nil
}

// stepResult is how a step ended.
type stepResult struct {
	stop llm.StopReason
	// final says the model called no tools.
	final bool
	// continued says the boundary delivered something the model must
	// answer: a steer or a model-visible injection.
	continued bool
}

// runStep runs one step: a model request, the assistant entry, its tool
// calls, step_end and the boundary. The caller holds the busy token.
func (a *Agent) runStep(ctx context.Context) (stepResult, error) {
	if err := a.syncView(); err != nil {
		return stepResult{}, fmt.Errorf("agent: %w", err)
	}
	if err := a.maybeCompact(ctx); err != nil && ctx.Err() != nil {
		return stepResult{}, a.recordAbort(ctx)
	}
	a.mu.Lock()
	a.step++
	a.mu.Unlock()
	a.emit(a.event(Event{Type: EventStepStart}))

	resp, written, err := a.ask(ctx)
	if err != nil {
		aborted := ctx.Err() != nil
		stop := StopError
		if aborted {
			stop = StopAborted
		}
		// Keep what was said before the stream broke off; tool calls in it
		// never ran and are dropped, as they would need results.
		if partial := withoutToolCalls(resp); aborted && len(partial.Content) > 0 {
			if e, werr := a.appendBody(&session.Message{Message: partial, Model: a.ref, Usage: resp.Usage, StopReason: stop}); e.ID != "" {
				written = append(written, e)
				a.emit(a.event(Event{Type: EventMessageEnd, Entry: &e, StopReason: stop, Usage: &resp.Usage}))
			} else {
				err = errors.Join(err, werr)
			}
		}
		if !aborted {
			if e, werr := a.appendBody(errorEntry(err, resp)); e.ID != "" {
				written = append(written, e)
			} else {
				err = errors.Join(err, werr)
			}
		}
		a.emit(a.event(Event{Type: EventStepEnd, Entries: written}))
		if aborted {
			return stepResult{stop: stop}, a.recordAbort(ctx)
		}
		return stepResult{stop: stop}, fmt.Errorf("agent: model: %w", err)
	}

	e, err := a.appendBody(&session.Message{Message: resp.Message, Model: a.ref, Usage: resp.Usage, StopReason: resp.StopReason})
	if e.ID == "" {
		a.emit(a.event(Event{Type: EventStepEnd}))
		return stepResult{stop: resp.StopReason}, fmt.Errorf("agent: write reply: %w", err)
	}
	written = append(written, e)
	a.emit(a.event(Event{Type: EventMessageEnd, Entry: &e, StopReason: resp.StopReason, Usage: &resp.Usage}))

	calls := resp.Message.ToolCalls()
	written, err = a.runTools(ctx, calls, written)
	a.emit(a.event(Event{Type: EventStepEnd, Entries: written}))
	res := stepResult{stop: resp.StopReason, final: len(calls) == 0}
	if ctx.Err() != nil {
		return res, a.recordAbort(ctx)
	}
	if err != nil {
		return res, err
	}

	res.continued = a.boundary(ctx, written, res.final)
	if ctx.Err() != nil {
		return res, a.recordAbort(ctx)
	}
	return res, nil
}

// The stop reasons the agent records on replies the model never finished.
const (
	StopAborted llm.StopReason = "aborted"
	StopError   llm.StopReason = "error"
)

// withoutToolCalls returns the partial reply's message without its tool
// calls.
func withoutToolCalls(resp *llm.Response) llm.Message {
	msg := llm.Message{Role: llm.RoleAssistant}
	if resp == nil {
		return msg
	}
	for _, b := range resp.Message.Content {
		if b.Type != llm.BlockToolCall {
			msg.Content = append(msg.Content, b)
		}
	}
	return msg
}

// errorEntry records a model error that ended a turn, with what the model
// had said by then, for the user (the model is not sent it).
func errorEntry(err error, resp *llm.Response) *session.Custom {
	c := &session.Custom{CustomType: CustomError, Content: []llm.Block{llm.Text(err.Error())}, Display: true}
	if partial := withoutToolCalls(resp); len(partial.Content) > 0 {
		c.Details, _ = json.Marshal(map[string]any{"partial": partial})
	}
	return c
}
