package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// summaryBytes bounds a tool_end event's Summary.
const summaryBytes = 200

// runTools runs a step's tool calls one after the other, in the order the
// model wrote them, appending each result as it completes; a call that
// needs approval waits for it first (approve). An
// interrupting steer cancels the running call (its context's cause is
// ErrSteerInterrupt) and skips the rest; an abort does the same with
// ErrAborted. Every call gets a result, so the next request is valid.
// It returns written with the result entries appended.
func (a *Agent) runTools(ctx context.Context, calls []llm.Block, written []session.Entry) ([]session.Entry, error) {
	if len(calls) == 0 {
		return written, nil
	}
	toolCtx, cancel := context.WithCancelCause(ctx)
	a.setInterrupt(cancel, waitTools)
	defer func() {
		a.setInterrupt(nil, waitNone)
		cancel(nil)
	}()
	for _, call := range calls {
		ev := Event{Type: EventToolEnd, ToolCallID: call.ID, Tool: call.Name, Arguments: call.Arguments}
		var res tools.Result
		run := toolCtx.Err() == nil
		if run {
			res, run = a.approve(toolCtx, call, &ev)
		} else {
			ev.Skipped, ev.Interrupted, ev.Reason = true, true, interruptReason(toolCtx)
			res = tools.Result{IsError: true, Content: []llm.Block{llm.Text(skippedText(ev.Reason))}}
		}
		if run {
			a.emit(a.event(Event{Type: EventToolStart, ToolCallID: call.ID, Tool: call.Name, Arguments: call.Arguments}))
			res = a.invoke(toolCtx, tools.CallFrom(call))
			if toolCtx.Err() != nil {
				ev.Interrupted, ev.Reason = true, interruptReason(toolCtx)
				res.IsError = true
				if !res.Details.Aborted { // else the result says it
					res.Content = append(res.Content, llm.Text(interruptedText(ev.Reason)))
				}
			}
		}
		e, err := a.appendBody(&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{res.Block(call.ID)}}, Details: resultDetails(res.Details, ev)})
		if e.ID == "" {
			// The session refused the write (a full disk): rebuild the view
			// from the session, so the next request gives this call a
			// stand-in result instead of carrying a call without one, which
			// every provider rejects.
			if rerr := a.view.rebuild(a.sess, a.fixedTokens); rerr != nil {
				err = errors.Join(err, rerr)
			}
			return written, fmt.Errorf("agent: write result of %s call %s: %w", call.Name, call.ID, err)
		}
		written = append(written, e)
		ev.Entry, ev.IsError, ev.Summary = &e, res.IsError, summarize(res.Text())
		if !reflect.ValueOf(res.Details).IsZero() {
			d := res.Details
			ev.Details = &d
		}
		a.emit(a.event(ev))
	}
	return written, nil
}

// ResultDetails are what the entry of a tool result keeps for user
// interfaces, in [session.Message.Details] as JSON: the tool's details
// and, for a call cut short, the interrupt (as [EventToolEnd] says it).
type ResultDetails struct {
	tools.Details
	Interrupted bool   `json:"interrupted,omitempty"`
	Skipped     bool   `json:"skipped,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// resultDetails is the JSON of a result's ResultDetails; nil when there
// is nothing to keep.
func resultDetails(d tools.Details, ev Event) json.RawMessage {
	rd := ResultDetails{Details: d, Interrupted: ev.Interrupted, Skipped: ev.Skipped, Reason: ev.Reason}
	if reflect.ValueOf(rd).IsZero() {
		return nil
	}
	raw, err := json.Marshal(rd)
	if err != nil {
		return nil // plain data: cannot fail
	}
	return raw
}

// invoke runs one call. Tools are found by name without asking every tool
// for its definition; an unknown name gets tools.Invoke's error, which
// lists the tools there are.
func (a *Agent) invoke(ctx context.Context, call tools.Call) tools.Result {
	if t, ok := a.byName[call.Name]; ok {
		return tools.Invoke(ctx, []tools.Tool{t}, call)
	}
	return tools.Invoke(ctx, a.toolset, call)
}

// setInterrupt registers what an interrupting steer cancels, a wait of
// kind w; nil clears it. A queued steer that cuts such a wait cancels it
// at once.
func (a *Agent) setInterrupt(cancel context.CancelCauseFunc, w waitKind) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.interrupt, a.wait = cancel, w
	if cancel == nil {
		a.wait = waitNone
		return
	}
	if slices.ContainsFunc(a.steers, w.cutBy) {
		cancel(ErrSteerInterrupt)
	}
}

// interruptReason tells a steer's interrupt from the user's.
func interruptReason(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), ErrSteerInterrupt) {
		return InterruptSteer
	}
	return InterruptUser
}

func interruptedText(reason string) string {
	if reason == InterruptSteer {
		return "[interrupted: the user sent a steering message while this call ran; the rest of this step's calls were skipped]"
	}
	return "[interrupted by the user]"
}

func skippedText(reason string) string {
	if reason == InterruptSteer {
		return "[not run: the user sent a steering message before this call started]"
	}
	return "[not run: interrupted by the user]"
}

// summarize returns the start of a result's text for a tool_end event.
func summarize(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= summaryBytes {
		return s
	}
	cut := summaryBytes
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
