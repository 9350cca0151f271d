package advisorhost

import (
	"context"
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/tools"
)

// Consulter answers the agent's questions: [advisor.Runtime.Consult] or
// [advisor.Periodic.Consult], or a function that finds the advisor
// running now.
type Consulter func(ctx context.Context, question string) (string, error)

// AskTool returns the agent's ask_advisor tool ([advisor.AskTool]): each
// call asks consult and returns the answer, escaped as consult returns
// it. A consult that gives no answer (the per-run cap, a timeout, no
// advisor) is an error saying so, for the model ([advisor.ConsultError]),
// so the agent goes on without it.
func AskTool(consult Consulter) tools.Tool {
	return askTool{consult: consult}
}

type askTool struct{ consult Consulter }

func (askTool) Definition() llm.Tool { return advisor.AskTool() }

func (t askTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	q, err := advisor.ParseQuestion(call.Arguments)
	if err != nil {
		return tools.Result{}, err
	}
	answer, err := t.consult(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("ask_advisor: %w", ctx.Err())
		}
		return tools.Result{}, errors.New(advisor.ConsultError(err))
	}
	return tools.Result{Content: []llm.Block{llm.Text(answer)}}, nil
}
