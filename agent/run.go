package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// The custom types of the entries the agent writes itself.
const (
	// CustomAborted marks where a run was interrupted (Display and
	// InContext: the model learns of it on the next request).
	CustomAborted = "aborted"
	// CustomError records a model error that ended a turn (Display only).
	CustomError = "error"
	// CustomResume opens a turn started by [Agent.Resume] (Display and
	// InContext).
	CustomResume = "resume"
	// ContinueText is what a resume with no text of its own says: the
	// user continuing a stopped run (the `.`/`c` shortcut, RPC resume with
	// no message).
	ContinueText = "Continue."
)

// acquire takes the busy token, or fails with ErrBusy. An AppendCustom
// of an idle agent holds the token only to write one entry and emit its
// event: acquire waits for it rather than fail, so that a note a host
// shows in the background (a warning, the advisor's fleet answering)
// never costs the user's prompt that arrives at the same moment.
func (a *Agent) acquire() error {
	for {
		a.mu.Lock()
		if !a.busy {
			a.busy = true
			a.mu.Unlock()
			return nil
		}
		appending := a.appending
		a.mu.Unlock()
		if appending == nil {
			return ErrBusy
		}
		<-appending
	}
}

// release writes the custom messages queued while the token was held,
// then gives the token back. Messages queued by subscribers of those
// writes are written too, so none is left behind.
func (a *Agent) release() {
	for {
		a.mu.Lock()
		if len(a.customs) == 0 {
			a.busy = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		a.flushCustoms()
	}
}

// Prompt runs a turn opened by the user message text, then a turn for each
// follow-up queued by then, and returns when the last one ends: nil, the
// model error that ended a turn, or ErrAborted after Abort. It needs the
// agent idle ([ErrBusy]). Cancelling ctx interrupts the run as Abort does,
// and Prompt then returns ctx's cause.
func (a *Agent) Prompt(ctx context.Context, text string) error {
	if text == "" {
		return errors.New("agent: prompt: empty text")
	}
	return a.run(ctx, CausePrompt, userText(text))
}

// Resume starts a run in a stopped agent on behalf of a host (the advisor
// resuming after raising a concern while the agent was idle) or of the
// user continuing a stopped run. It works as Prompt, but its opening
// message is a custom entry of type CustomResume (displayed, in context)
// holding text, [ContinueText] when text is empty, and its turn_start says
// CauseResume.
func (a *Agent) Resume(ctx context.Context, text string) error {
	if text == "" {
		text = ContinueText
	}
	return a.run(ctx, CauseResume, &session.Custom{
		CustomType: CustomResume, Content: []llm.Block{llm.Text(text)}, Display: true, InContext: true,
	})
}

// run holds the busy token for one run of turns.
func (a *Agent) run(ctx context.Context, cause TurnCause, opening session.Body) error {
	if err := a.acquire(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	a.mu.Lock()
	a.runCancel = cancel
	a.running = true
	a.runs++
	a.lastAborted = false
	a.mu.Unlock()
	defer func() {
		a.flushCustoms()
		a.mu.Lock()
		a.runCancel = nil
		a.running = false
		a.dropRunSteers()
		a.mu.Unlock()
		cancel(nil)
		a.emit(a.event(Event{Type: EventIdle}))
		a.release()
	}()
	if err := a.syncView(); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	for {
		if err := a.runTurn(ctx, cause, opening); err != nil {
			return err
		}
		if ctx.Err() != nil {
			// Interrupted between turns: the queued follow-ups stay queued.
			return a.recordAbort(ctx)
		}
		a.mu.Lock()
		if len(a.followUps) == 0 {
			a.mu.Unlock()
			return nil
		}
		next := a.followUps[0]
		a.followUps = a.followUps[1:]
		a.mu.Unlock()
		cause, opening = CauseFollowUp, userText(next)
	}
}

// Abort interrupts the run in progress, as a user's Esc does: the model
// stream and the running tool are cancelled at once, the remaining tool
// calls of the step are answered as not run, a CustomAborted entry marks
// the interrupt in the session, the aborted event is emitted and Prompt
// returns ErrAborted. Queued steers and follow-ups stay queued. Without a
// run in progress Abort does nothing.
func (a *Agent) Abort() {
	a.mu.Lock()
	cancel := a.runCancel
	a.mu.Unlock()
	if cancel != nil {
		cancel(ErrAborted)
	}
}

// recordAbort writes the interrupt marker and emits aborted. It returns
// what the run returns: ErrAborted, or the cause of ctx.
func (a *Agent) recordAbort(ctx context.Context) error {
	cause := context.Cause(ctx)
	label := "[Interrupted by user]"
	if !errors.Is(cause, ErrAborted) {
		label = "[Interrupted: " + cause.Error() + "]"
	}
	e, err := a.appendBody(&session.Custom{
		CustomType: CustomAborted, Content: []llm.Block{llm.Text(label)}, Display: true, InContext: true,
	})
	ev := a.event(Event{Type: EventAborted, Reason: cause.Error()})
	if err == nil {
		ev.Entry = &e
	}
	a.mu.Lock()
	a.lastAborted = errors.Is(cause, ErrAborted)
	a.mu.Unlock()
	a.emit(ev)
	return cause
}

// AppendCustom writes a custom message to the session, such as an
// advisor's card (Display set, InContext not), and emits custom_appended.
// While the agent is idle it is written at once and returned. While a run
// (or a compaction) is in progress it is queued instead, AppendCustom
// returns ErrDeferred, and the loop writes it at the next step boundary
// (after the step's steers and injections) or when the run ends; custom
// entries written so never continue a turn. Prompt, Resume, Compact,
// BranchFrom and SwitchSession called while it writes wait for it
// instead of failing with ErrBusy, so a subscriber of its
// custom_appended must not call them.
func (a *Agent) AppendCustom(c session.Custom) (session.Entry, error) {
	if c.CustomType == "" {
		return session.Entry{}, errors.New("agent: append custom: no CustomType")
	}
	a.mu.Lock()
	if a.busy {
		a.customs = append(a.customs, c)
		a.mu.Unlock()
		return session.Entry{}, ErrDeferred
	}
	a.busy = true
	appending := make(chan struct{})
	a.appending = appending
	a.mu.Unlock()
	defer func() {
		a.release()
		a.mu.Lock()
		if a.appending == appending {
			a.appending = nil
		}
		a.mu.Unlock()
		close(appending)
	}()
	e, err := a.appendBody(&c)
	if e.ID == "" {
		return e, fmt.Errorf("agent: append custom: %w", err)
	}
	a.emit(a.event(Event{Type: EventCustomAppended, Entry: &e}))
	return e, err
}

// flushCustoms writes the queued custom messages. The caller holds the
// busy token.
func (a *Agent) flushCustoms() {
	a.mu.Lock()
	queued := a.customs
	a.customs = nil
	a.mu.Unlock()
	for i := range queued {
		e, err := a.appendBody(&queued[i])
		ev := a.event(Event{Type: EventCustomAppended, Err: err})
		if e.ID != "" {
			ev.Entry = &e
		}
		a.emit(ev)
	}
}
