package advisor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
)

// DefaultConsultTimeout is the default of [Options.ConsultTimeout] and
// of advisor.consult.timeoutSeconds.
const DefaultConsultTimeout = 2 * time.Minute

// DefaultConsultMaxPerRun is the default of [Options.ConsultMaxPerRun]
// and of advisor.consult.maxPerRun.
const DefaultConsultMaxPerRun = 5

// ConsultHeading opens the question of a consult in the advisor's
// context (after the session update it came with, if any); an advisor
// transcript recognises consults by it ([IsConsult]).
const ConsultHeading = "### Consult"

// noAnswer is the answer of a consult whose reply held no text.
const noAnswer = "The advisor gave no answer."

// ErrConsultLimit is returned by [Runtime.Consult] once the primary's run
// has had [Options.ConsultMaxPerRun] consults.
var ErrConsultLimit = errors.New("advisor: this run has used up its consults")

// ErrConsultWithheld is returned by [Runtime.Consult] and
// [Periodic.Consult] when the advisor's words are kept out of the agent's
// context ([Options.Withhold], advisor.allowPromptInjection: false): an
// answer would enter it as the tool's result, so none is asked for.
var ErrConsultWithheld = errors.New("advisor: its words are kept from the agent (advisor.allowPromptInjection is false), so it answers no questions")

// ErrNoConsultModel is returned by [Runtime.Consult] when the advisor has
// no model (the detectors alone review): nothing can answer a question.
var ErrNoConsultModel = errors.New("advisor: no advisor model to answer (the zero-token detectors alone review)")

// consultAdviseResult answers an advise call made in a consult.
const consultAdviseResult = "Added to your answer: the agent reads it with your reply, as the result of its question. Nothing was sent on its own."

// consultReq is one consult waiting for, or served by, the drain
// goroutine.
type consultReq struct {
	ctx      context.Context
	question string
	reply    chan consultReply // buffered: the drain goroutine never waits
}

type consultReply struct {
	answer string
	err    error
}

// consultTurn gathers a consult's answer while converse runs it: the
// latest text the model wrote, and the notes of advise calls it made.
type consultTurn struct {
	text  string
	notes []string
}

// saw keeps the latest non-empty text of a reply.
func (ct *consultTurn) saw(text string) {
	if t := strings.TrimSpace(text); t != "" {
		ct.text = t
	}
}

// answer is the reply's text, then the advise calls' notes.
func (ct *consultTurn) answer() string {
	parts := make([]string, 0, 1+len(ct.notes))
	if ct.text != "" {
		parts = append(parts, ct.text)
	}
	said := strings.Join(normalise(ct.text), " ")
	for _, n := range ct.notes {
		// A note the text already says is not said twice.
		key := strings.Join(normalise(n), " ")
		if n = strings.TrimSpace(n); n != "" && !strings.Contains(said, key) {
			parts = append(parts, n)
			said += " " + key
		}
	}
	return strings.Join(parts, "\n\n")
}

// Consult asks the advisor a question of the agent it watches (vigil's
// ask_advisor tool) and returns its answer, XML-escaped by
// [FormatAnswer] as a note's body is.
//
// The question joins the advisor's own context as a consult turn: one
// user message holding the session update pending (everything the
// transcript holds that the advisor has not seen, read now, so the
// advisor sees everything up to the question), then the question under
// [ConsultHeading]. The advisor answers in its reply's text, with its
// read-only tools if it wants them; an advise call in a consult adds to
// the answer and delivers nothing. The request is the reviews' own
// (system prompt, tools, context), so the provider's prompt cache serves
// everything before the update; everything in it passes the Redactor.
// The steps the update covered count as reviewed. The answer is told to
// the runtime's emission guard, so a later note does not repeat it.
//
// The consult is served by the drain goroutine between reviews: it waits
// for the review in flight, and goes before the reviews queued. It never
// holds a lock while it waits, and the drain goroutine never waits for
// it, so a primary blocked at a step boundary (advisor.syncBacklog) and a
// consult cannot deadlock. It ends with an error after
// [Options.ConsultTimeout] (waiting included) or when ctx ends, leaving
// the advisor's context as if it had not been asked; it is refused at
// once with [ErrConsultLimit] after [Options.ConsultMaxPerRun] consults
// in one run of the primary (counted from its last [EventRunEnded]),
// with [ErrNoConsultModel] without a model, with [ErrConsultWithheld]
// under [Options.Withhold] and with [ErrStopped] when the runtime is not
// running.
func (r *Runtime) Consult(ctx context.Context, question string) (string, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return "", errors.New("advisor: consult: the question is empty")
	}
	r.mu.Lock()
	switch {
	case !r.started || r.stopped:
		r.mu.Unlock()
		return "", ErrStopped
	case r.opts.Model == nil:
		r.status.ConsultsRefused++
		r.mu.Unlock()
		return "", ErrNoConsultModel
	case r.opts.Withhold:
		r.status.ConsultsRefused++
		r.mu.Unlock()
		return "", ErrConsultWithheld
	case r.runConsults >= r.opts.ConsultMaxPerRun:
		r.status.ConsultsRefused++
		r.mu.Unlock()
		return "", fmt.Errorf("%w (advisor.consult.maxPerRun is %d)", ErrConsultLimit, r.opts.ConsultMaxPerRun)
	}
	r.runConsults++
	timeout := r.opts.ConsultTimeout
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ask := &consultReq{ctx: cctx, question: question, reply: make(chan consultReply, 1)}
	r.asks = append(r.asks, ask)
	done := r.done
	r.mu.Unlock()
	select {
	case r.askWake <- struct{}{}:
	default:
	}
	select {
	case rep := <-ask.reply:
		return rep.answer, rep.err
	case <-done:
		return "", ErrStopped
	case <-cctx.Done():
	}
	if r.dropAsk(ask) {
		// Never taken: the drain goroutine does not count it.
		r.mu.Lock()
		r.status.ConsultFailures++
		r.mu.Unlock()
	}
	return "", consultErr(ctx, cctx, timeout)
}

// dropAsk removes a consult not yet taken by the drain goroutine, and
// reports whether it was there.
func (r *Runtime) dropAsk(ask *consultReq) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.asks, ask)
	if i < 0 {
		return false
	}
	r.asks = slices.Delete(r.asks, i, i+1)
	return true
}

// nextAsk takes the oldest consult waiting, or returns nil.
func (r *Runtime) nextAsk() *consultReq {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.asks) == 0 {
		return nil
	}
	ask := r.asks[0]
	r.asks = slices.Delete(r.asks, 0, 1)
	return ask
}

// consult serves one consult on the drain goroutine and replies to it.
func (r *Runtime) consult(ctx context.Context, ask *consultReq) {
	cctx, cancel := context.WithCancel(ask.ctx)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	answer, err := r.answer(cctx, ask.question)
	r.record()
	r.mu.Lock()
	if err != nil {
		r.status.ConsultFailures++
	} else {
		r.status.Consults++
		r.status.Pending = len(r.queue) > 0
		// The steps its update covered are reviewed.
		r.settleLocked()
	}
	r.status.ContextMessages = len(r.messages)
	r.mu.Unlock()
	if err != nil {
		r.logf("advisor: consult failed: %v", err)
		err = fmt.Errorf("advisor: consult: %w", err)
	}
	ask.reply <- consultReply{answer: answer, err: err}
}

// answer runs a consult turn: the pending update and the question, then
// the model until it answers. On failure the context is as it was, and
// the pending entries wait for the next review.
func (r *Runtime) answer(ctx context.Context, question string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := r.collect(ctx, true); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		// Asked with what was read before; the step is queued again.
		r.logf("advisor: reading the transcript for a consult: %v", err)
	}
	if r.continuing {
		// A review failed after it delivered a note: finish it first, so
		// the question follows its results.
		if err := r.converse(ctx, nil); err != nil {
			return "", err
		}
		r.continuing = false
		r.mu.Lock()
		r.status.Reviews++
		r.mu.Unlock()
	}
	q := consultText(question)
	update := r.consultUpdate()
	if r.maintain(ctx, int64((len(update)+len(q))/4+4)) {
		update = r.consultUpdate()
	}
	content := []llm.Block{llm.Text(q)}
	if update != "" {
		content = []llm.Block{llm.Text(update), llm.Text(q)}
	}
	r.appendMessage(llm.Message{Role: llm.RoleUser, Content: content}, llm.Usage{})
	r.reviewAt = len(r.messages) - 1
	ct := &consultTurn{}
	if err := r.converse(ctx, ct); err != nil {
		// The consult message is rolled back; its update goes again
		// with the next review.
		r.renderer.Reset()
		return "", err
	}
	r.pending, r.due = nil, false
	r.forgetHints()
	answer := ct.answer()
	r.guard.Answered(answer)
	if g := r.opts.Roster; g != nil {
		g.answered(answer)
	}
	return FormatAnswer(answer), nil
}

// consultUpdate renders the pending entries, with the detectors' hints,
// as the update a consult opens with; "" when there is none.
func (r *Runtime) consultUpdate() string {
	if len(r.pending) == 0 {
		return ""
	}
	text := r.renderer.Update(r.pending, history.AdvisorOptions(r.opts.Redactor))
	if text == "" {
		return ""
	}
	return text + r.hintText()
}

// consultText is the question as the advisor's context holds it: the
// heading, the agent's question XML-escaped in a question element, and
// what to do with it.
func consultText(question string) string {
	var b strings.Builder
	b.WriteString(ConsultHeading + "\n\nThe agent asks you, with its ask_advisor tool, and waits:\n\n<question>\n")
	escapeLines(&b, question)
	b.WriteString("\n</question>\n\nAnswer in your reply's text, which the agent gets as the tool's result; advise sends nothing now. Check with the read-only tools if needed. Be brief and concrete.")
	return b.String()
}

// IsConsult reports whether m is a consult turn of the advisor's context:
// a user message with a block that opens with [ConsultHeading].
func IsConsult(m llm.Message) bool {
	if m.Role != llm.RoleUser {
		return false
	}
	for _, b := range m.Content {
		if b.Type == llm.BlockText && strings.HasPrefix(b.Text, ConsultHeading) {
			return true
		}
	}
	return false
}

// FormatAnswer renders a consult's answer as the agent receives it: the
// text XML-escaped line by line, as [FormatAdvisories] escapes a note's
// body, so nothing in it can open or close an advisory element; an empty
// answer is "The advisor gave no answer."
func FormatAnswer(answer string) string {
	answer = strings.TrimSpace(answer)
	if answer == "" {
		return noAnswer
	}
	var b strings.Builder
	escapeLines(&b, answer)
	return b.String()
}
