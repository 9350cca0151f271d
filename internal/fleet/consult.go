package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/vigil-dev/vigil/advisor"
)

// ConsultSubject is the subject a session's questions to its advisor
// (ask_advisor) go to. They are NATS requests, not stream messages: the
// worker that owns the session answers while it owns it, and a question
// nobody answers fails at once.
func ConsultSubject(tenant, sess string) string { return "vigil." + tenant + ".consult." + sess }

// maxQuestion bounds a question's bytes on the wire; ask_advisor takes
// at most 4,000 characters.
const maxQuestion = 64 << 10

// ErrNoWorker says no worker holds the session now: none runs, or the
// session was idle long enough to be let go. It wraps
// [advisor.ErrStopped], so ask_advisor says the advisor is unavailable.
var ErrNoWorker = fmt.Errorf("fleet: no worker holds this session now: %w", advisor.ErrStopped)

// consultRequest is a question on the wire.
type consultRequest struct {
	Question string `json:"question"`
}

// consultResponse is the worker's answer, or why there is none: Reason
// names the advisor's refusals the agent words itself ("limit",
// "withheld", "unavailable"), Error says what went wrong.
type consultResponse struct {
	Answer string `json:"answer,omitempty"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Consulter is a [Reviewer] that also answers the agent's questions with
// the context of its reviews.
type Consulter interface {
	Consult(ctx context.Context, question string) (string, error)
}

// Consult asks the continuous runtime.
func (r runtimeReviewer) Consult(ctx context.Context, q string) (string, error) {
	return r.rt.Consult(ctx, q)
}

// Consult asks the periodic runtime, a fork like a review.
func (r *periodicReviewer) Consult(ctx context.Context, q string) (string, error) {
	return r.p.Consult(ctx, q)
}

// answerConsults answers the questions to sess's advisor with rv while
// the worker serves the session; stop unsubscribes and waits for the
// answers in flight. A reviewer that cannot answer says the advisor is
// unavailable.
func (w *Worker) answerConsults(ctx context.Context, sess string, rv Reviewer) (stop func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	// The answers in flight are counted under mu, and none starts once
	// stopped: a question delivered as the subscription goes would
	// otherwise be a WaitGroup Add racing stop's Wait, its answer
	// outliving the reviewer it asks.
	var (
		mu      sync.Mutex
		stopped bool
		wg      sync.WaitGroup
	)
	sub, err := w.nc.Subscribe(ConsultSubject(w.opts.Tenant, sess), func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			// The session is being let go: the advisor is unavailable,
			// said now rather than left to the asker's bound.
			if data, err := json.Marshal(consultResponse{Reason: "unavailable"}); err == nil {
				_ = m.Respond(data)
			}
			return
		}
		wg.Go(func() { w.answer(ctx, sess, rv, m) })
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("session %s: answering questions: %w", sess, err)
	}
	return func() {
		_ = sub.Unsubscribe()
		mu.Lock()
		stopped = true
		mu.Unlock()
		cancel()
		wg.Wait()
	}, nil
}

// answer answers one question.
func (w *Worker) answer(ctx context.Context, sess string, rv Reviewer, m *nats.Msg) {
	var resp consultResponse
	var req consultRequest
	c, ok := rv.(Consulter)
	switch {
	case len(m.Data) > maxQuestion:
		resp.Error = fmt.Sprintf("the question is %d bytes, over %d", len(m.Data), maxQuestion)
	case json.Unmarshal(m.Data, &req) != nil:
		resp.Error = "the question is not the JSON of a consult"
	case !ok:
		resp.Reason = "unavailable"
	default:
		answer, err := c.Consult(ctx, req.Question)
		switch {
		case err == nil:
			resp.Answer = w.opts.Redactor.Redact(answer)
		case errors.Is(err, advisor.ErrConsultLimit):
			resp.Reason, resp.Error = "limit", err.Error()
		case errors.Is(err, advisor.ErrConsultWithheld):
			resp.Reason = "withheld"
		case errors.Is(err, advisor.ErrStopped), errors.Is(err, advisor.ErrNoConsultModel):
			resp.Reason = "unavailable"
		default:
			resp.Error = w.opts.Redactor.Redact(err.Error())
		}
	}
	data, err := json.Marshal(resp)
	if err == nil {
		err = m.Respond(data)
	}
	if err != nil {
		w.logf("fleet: session %s: answering a question: %v", sess, err)
	}
}

// Consult asks the fleet's advisor of this session a question once every
// step notified before it was published and reviewed, so the advisor
// sees everything up to the question; ctx bounds the whole. The question
// goes with its secrets hidden ([ClientOptions.Redactor]). The answer
// is the advisor's, and nothing in it can open or close an advisory
// element. No worker holding the session is [ErrNoWorker], at once.
func (r *Remote) Consult(ctx context.Context, question string) (string, error) {
	if err := r.WaitBacklogBelow(ctx, 1); err != nil {
		return "", fmt.Errorf("fleet: the steps before the question were not reviewed in time: %w", err)
	}
	data, err := json.Marshal(consultRequest{Question: r.c.opts.Redactor.Redact(question)})
	if err != nil {
		return "", fmt.Errorf("fleet: question: %w", err)
	}
	m, err := r.c.nc.RequestWithContext(ctx, ConsultSubject(r.c.opts.Tenant, r.c.opts.Session), data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return "", ErrNoWorker
	case err != nil:
		return "", fmt.Errorf("fleet: asking the advisor: %w", err)
	}
	var resp consultResponse
	if err := json.Unmarshal(m.Data, &resp); err != nil {
		return "", fmt.Errorf("fleet: the advisor's answer: %w", err)
	}
	switch resp.Reason {
	case "limit":
		return "", fmt.Errorf("%w%s", advisor.ErrConsultLimit, markupEscaper.Replace(strings.TrimPrefix(resp.Error, advisor.ErrConsultLimit.Error())))
	case "withheld":
		return "", advisor.ErrConsultWithheld
	case "unavailable":
		return "", advisor.ErrNoConsultModel
	}
	if resp.Error != "" {
		return "", fmt.Errorf("fleet: the advisor: %s", markupEscaper.Replace(resp.Error))
	}
	// The worker escaped it (advisor.FormatAnswer); what reaches the
	// agent is escaped again against markup, which escaped text lacks.
	return markupEscaper.Replace(resp.Answer), nil
}

// markupEscaper escapes what could open or close an element.
var markupEscaper = strings.NewReplacer("<", "&lt;", ">", "&gt;")
