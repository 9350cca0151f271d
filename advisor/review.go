package advisor

import (
	"context"
	"slices"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/tools"
)

// toolBudgetSpent is the error result of a tool call made after the
// review's tool rounds ran out.
const toolBudgetSpent = "Not run: the tool budget of this update is spent. Decide with what you have; more updates will come."

// review runs one review of r.pending: it appends the update message and
// the model's replies and tool results to the advisor's context. On error
// the context is rolled back to where it was, and the renderer is reset,
// since the rendered update was never delivered.
func (r *Runtime) review(ctx context.Context) (ran bool, err error) {
	text := r.renderer.Update(r.pending, history.AdvisorOptions(r.opts.Redactor))
	if text == "" {
		return false, nil // nothing the advisor is shown
	}
	mark := len(r.messages)
	r.messages = append(r.messages, llm.UserText(text))
	r.guard.NewUpdate()
	var usage llm.Usage
	for round := 0; ; round++ {
		req := llm.Request{
			System:    r.system,
			Messages:  slices.Clip(r.messages),
			Tools:     r.defs,
			MaxTokens: r.opts.MaxTokens,
		}
		resp, err := llm.Accumulate(r.opts.Model.Stream(ctx, req))
		if err != nil {
			r.messages = r.messages[:mark]
			r.renderer.Reset()
			return false, err
		}
		usage = usage.Add(resp.Usage)
		r.messages = append(r.messages, resp.Message)
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			break
		}
		spent := round+1 >= r.opts.MaxToolRounds
		results := make([]llm.Block, 0, len(calls))
		for _, c := range calls {
			results = append(results, r.runTool(ctx, c, spent))
		}
		r.messages = append(r.messages, llm.Message{Role: llm.RoleUser, Content: results})
		if spent {
			break
		}
	}
	r.mu.Lock()
	r.status.Usage = r.status.Usage.Add(usage)
	r.mu.Unlock()
	return true, nil
}

// runTool answers one tool call of the advisor.
func (r *Runtime) runTool(ctx context.Context, c llm.Block, spent bool) llm.Block {
	if c.Name == AdviseToolName {
		a, err := ParseAdvice(c.Arguments)
		if err != nil {
			return llm.ToolResult(c.ID, true, llm.Text(err.Error()))
		}
		return llm.ToolResult(c.ID, false, llm.Text(r.deliver(ctx, a)))
	}
	if spent {
		return llm.ToolResult(c.ID, true, llm.Text(toolBudgetSpent))
	}
	return tools.Invoke(ctx, r.ro, tools.CallFrom(c)).Block(c.ID)
}

// deliver passes one note through the guard and the delivery policy to
// the host, and returns the tool result text for the advisor.
func (r *Runtime) deliver(ctx context.Context, a Advice) string {
	d := r.guard.Check(a)
	if !d.Deliver {
		return AdviseResult(d, Route{})
	}
	r.mu.Lock()
	in := RouteInput{UserStopped: r.latch.Stopped(), Streaming: r.streaming, Immune: r.immunity.Active()}
	r.mu.Unlock()
	route := RouteAdvice(a.Severity, in)
	var err error
	switch route.Channel {
	case ChannelSteer:
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
	case ChannelCard:
		err = r.opts.Host.Card(ctx, a)
	default:
		err = r.opts.Host.Aside(ctx, a)
	}
	if err != nil {
		r.logf("advisor: delivering a %s: %v", route.Channel, err)
		return "Not delivered: the agent could not be reached (" + err.Error() + ")."
	}
	return AdviseResult(d, route)
}
