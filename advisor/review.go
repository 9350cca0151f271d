package advisor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/tools"
)

// toolBudgetSpent is the error result of a tool call made after the
// review's tool rounds ran out.
const toolBudgetSpent = "Not run: the tool budget of this update is spent. Decide with what you have; more updates will come."

// review runs one review of r.pending: it appends the update message and
// the model's replies and tool results to the advisor's context. If a
// review failed after delivering a note, it first finishes that one.
func (r *Runtime) review(ctx context.Context) (ran bool, err error) {
	if r.continuing {
		if err := r.converse(ctx, nil); err != nil {
			return false, err
		}
		r.continuing = false
		ran = true
	}
	text := r.renderer.Update(r.pending, history.AdvisorOptions(r.opts.Redactor))
	if text == "" {
		return ran, nil // nothing the advisor is shown
	}
	text += r.hintText()
	if r.maintain(ctx, int64(len(text)/4+4)) {
		text = r.renderer.Update(r.pending, history.AdvisorOptions(r.opts.Redactor))
		if text == "" {
			return ran, nil
		}
		text += r.hintText()
	}
	r.appendMessage(llm.UserText(text), llm.Usage{})
	r.hostThinking()
	r.reviewAt = len(r.messages) - 1
	r.guard.NewUpdate()
	r.deliverHeld(ctx)
	if err := r.converse(ctx, nil); err != nil {
		if !r.continuing {
			// Nothing was delivered: the update goes again on retry, as if
			// it had never been shown.
			r.renderer.Reset()
		} else {
			r.pending = nil // its update stays in the context
		}
		return false, err
	}
	return true, nil
}

// converse calls the model on the advisor's context until it stops
// calling tools or its tool rounds run out, or, in a review, after a
// round whose calls were all advise calls the runtime took (delivered,
// withheld, queued or held for the next update): the model has nothing
// left to do with their results, and asking it again costs a request
// that buys no note (unless [Options.ContinueAfterAdvise]; the model
// reads the results in its next review). On error the context is cut
// back to the start of the call, or, when a note was delivered on the
// way, to the results that told the advisor so; then r.continuing is set
// and a retry goes on from there, so a note is never delivered twice.
//
// With ct set the turn is a consult: its closing text is ct's answer,
// advise calls add to the answer instead of delivering, and the prose
// check is skipped (an answer is prose by design).
func (r *Runtime) converse(ctx context.Context, ct *consultTurn) error {
	mark := len(r.messages) - 1 // the update, or the results to go on from
	if r.continuing {
		mark++
	}
	keep := -1
	var usage llm.Usage
	advised := false // the review called advise at least once
	model, name := r.currentModel()
	defer func() {
		r.addUsage(name, usage)
		if ct != nil {
			r.mu.Lock()
			r.status.ConsultUsage = r.status.ConsultUsage.Add(usage)
			r.mu.Unlock()
		}
	}()
	for round := 0; ; round++ {
		req := llm.Request{
			System:    r.system,
			Messages:  r.requestMessages(),
			Tools:     r.defs,
			MaxTokens: r.opts.MaxTokens,
			Thinking:  r.thinking,
		}
		cctx, cancel := context.WithTimeout(ctx, r.opts.CallTimeout)
		resp, err := llm.Accumulate(model.Stream(cctx, req))
		cancel()
		if err != nil {
			cut := mark
			if keep > mark {
				cut, r.continuing = keep, true
			}
			r.setMessages(slices.Clone(r.messages[:cut]))
			return err
		}
		usage = usage.Add(resp.Usage)
		r.reported, r.reportedAt = resp.Usage.Total(), len(r.messages)+1
		r.appendMessage(resp.Message, resp.Usage)
		calls := resp.Message.ToolCalls()
		for _, c := range calls {
			advised = advised || c.Name == adviseToolName
		}
		if ct != nil {
			ct.saw(resp.Message.Text())
		}
		if len(calls) == 0 {
			if ct == nil {
				r.checkProse(advised, resp.Message.Text())
			}
			return nil
		}
		spent := round+1 >= r.opts.MaxToolRounds
		results := make([]llm.Block, 0, len(calls))
		delivered, allTaken := false, true
		for _, c := range calls {
			res, ok, taken := r.runTool(ctx, c, spent, ct)
			results = append(results, res)
			delivered = delivered || ok
			allTaken = allTaken && taken
		}
		r.appendMessage(llm.Message{Role: llm.RoleUser, Content: results}, llm.Usage{})
		if delivered {
			keep = len(r.messages)
		}
		if spent {
			return nil
		}
		if allTaken && ct == nil && !r.opts.ContinueAfterAdvise {
			r.checkProse(true, "")
			return nil
		}
	}
}

// ProseMin is the length from which a review's closing text, with no
// advise call in the review, counts as advice written as prose: the
// silence the system prompt asks for is a few words, not paragraphs.
const ProseMin = 280

// ProseWarnAfter is how many such reviews in a row make the runtime warn
// that its notes never reach the agent.
const ProseWarnAfter = 3

// checkProse counts reviews that end in prose without an advise call
// (models that review in text and never call the tool), and warns once
// per streak, with what the advisor was saying; an advise call ends the
// streak.
func (r *Runtime) checkProse(advised bool, text string) {
	text = strings.TrimSpace(text)
	r.mu.Lock()
	switch {
	case advised:
		r.status.ProseStreak = 0
		r.prosewarned = false
	case utf8.RuneCountInString(text) >= ProseMin:
		r.status.ProseStreak++
	}
	warn := r.status.ProseStreak >= ProseWarnAfter && !r.prosewarned
	if warn {
		r.prosewarned = true
		r.status.ProseWarnings++
	}
	streak := r.status.ProseStreak
	r.mu.Unlock()
	if !warn {
		return
	}
	excerpt := []rune(strings.Join(strings.Fields(text), " "))
	if len(excerpt) > 160 {
		excerpt = append(excerpt[:160], '…')
	}
	msg := fmt.Sprintf("advisor: its last %d reviews ended in prose without calling advise, so nothing reached the agent (it was saying: %q); this model may not use tools as asked: try another advisor model", streak, string(excerpt))
	r.warn(msg)
}

// runTool answers one tool call of the advisor; delivered says it was an
// advise call whose note reached the agent, taken that it was an advise
// call the runtime took (delivered, or held for the next update), not
// dropped, refused or malformed. In a consult (ct set) an advise call's
// note joins the answer and nothing is delivered.
func (r *Runtime) runTool(ctx context.Context, c llm.Block, spent bool, ct *consultTurn) (res llm.Block, delivered, taken bool) {
	if c.Name == adviseToolName {
		a, err := parseAdvice(c.Arguments)
		if err != nil {
			return llm.ToolResult(c.ID, true, llm.Text(err.Error())), false, false
		}
		if ct != nil {
			ct.notes = append(ct.notes, a.Note)
			return llm.ToolResult(c.ID, false, llm.Text(consultAdviseResult)), false, false
		}
		text, ok, taken := r.deliver(ctx, a)
		return llm.ToolResult(c.ID, false, llm.Text(text)), ok, taken
	}
	if spent {
		return llm.ToolResult(c.ID, true, llm.Text(toolBudgetSpent)), false, false
	}
	return tools.Invoke(ctx, r.ro, tools.CallFrom(c)).Block(c.ID), false, false
}

// deliver passes one note through the guard and the delivery policy to
// the host, and returns the tool result text for the advisor, whether
// the note reached the agent (or, withheld, the user), and whether it
// was taken: delivered, or held for the next update. A note the host
// refused is not recorded by the guard: the advisor may send it again.
func (r *Runtime) deliver(ctx context.Context, a Advice) (text string, delivered, taken bool) {
	d := r.guard.Decide(a)
	if d.Hold {
		r.hold(a)
		return adviseResult(d, noteRoute{}), false, true
	}
	if !d.Deliver {
		return adviseResult(d, noteRoute{}), false, false
	}
	if g := r.opts.Roster; g != nil {
		if rd := g.reserve(a); !rd.Deliver {
			if rd.Hold {
				r.hold(a)
			}
			return adviseResult(rd, noteRoute{}), false, rd.Hold
		}
	}
	a.Advisor = r.opts.Name
	r.mu.Lock()
	in := routeInput{UserStopped: r.latch.Stopped(), Streaming: r.streaming, Immune: r.immunity.Active(), Withhold: r.opts.Withhold}
	r.mu.Unlock()
	route := routeAdvice(a.Severity, in)
	var err error
	switch route.Channel {
	case channelWithheld:
		if w, ok := r.opts.Host.(Withholder); ok {
			err = w.Withhold(ctx, a)
		}
	case channelSteer:
		err = r.opts.Host.Steer(ctx, a)
		if err == nil {
			r.mu.Lock()
			r.immunity.Steered()
			resume := !r.streaming && !r.latch.Stopped()
			r.mu.Unlock()
			if resume {
				if rerr := r.opts.Host.Resume(ctx); rerr != nil {
					r.logf("advisor: resume: %v", rerr)
				}
			}
		}
	case channelCard:
		err = r.opts.Host.Card(ctx, a)
	default:
		err = r.opts.Host.Aside(ctx, a)
	}
	if err != nil {
		if g := r.opts.Roster; g != nil {
			g.release(a)
		}
		r.logf("advisor: delivering a %s: %v", route.Channel, err)
		return "Not delivered: the agent could not be reached (" + err.Error() + ").", false, false
	}
	r.guard.Record(a)
	if g := r.opts.Roster; g != nil {
		g.commit(a)
	}
	r.mu.Lock()
	if route.Channel == channelWithheld {
		r.status.Withheld++
	} else {
		r.status.Delivered++
	}
	r.mu.Unlock()
	return adviseResult(d, route), true, true
}
