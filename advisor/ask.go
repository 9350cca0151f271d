package advisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/tools"
)

// AskToolName is the name of the tool with which the watched agent asks
// its advisor a question ([Runtime.Consult]).
const AskToolName = "ask_advisor"

// MaxQuestion bounds, in characters, the question of one ask_advisor call.
const MaxQuestion = 4000

// AskDescription is the ask_advisor tool's description: what the advisor
// is and when a question is worth it.
const AskDescription = `Ask your advisor one question. The advisor is a second model that has watched this whole session (every step, tool call and result) and can read the workspace; it answers in a few sentences, as advice to weigh, not an order.

Worth a call:
- before a risky or irreversible step: deleting or overwriting data, a migration, a force push, a release, a large rewrite;
- when you are stuck: the same fix failed twice, or an error you cannot explain;
- when two approaches compete and you must pick one.

Ask a specific question and say what you plan to do; do not repeat the context, the advisor has seen it. Questions are limited per run, so do not ask about routine steps.`

// AskDefinition returns the definition of the ask_advisor tool.
func AskDefinition() llm.Tool {
	return llm.Tool{Name: AskToolName, Description: AskDescription, Schema: askSchema}
}

// Consulter answers the watched agent's questions: [Runtime.Consult],
// [Periodic.Consult], or a function that finds the advisor running now.
type Consulter func(ctx context.Context, question string) (string, error)

// AskTool returns the agent's ask_advisor tool ([AskDefinition]): each
// call asks consult and returns the answer, escaped as consult returns
// it. A consult that gives no answer (the per-run cap, a timeout, no
// advisor) is an error saying so, for the model ([ConsultError]), so the
// agent goes on without it.
func AskTool(consult Consulter) tools.Tool {
	return askTool{consult: consult}
}

type askTool struct{ consult Consulter }

func (askTool) Definition() llm.Tool { return AskDefinition() }

func (t askTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	q, err := ParseQuestion(call.Arguments)
	if err != nil {
		return tools.Result{}, err
	}
	answer, err := t.consult(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("ask_advisor: %w", ctx.Err())
		}
		return tools.Result{}, errors.New(ConsultError(err))
	}
	return tools.Result{Content: []llm.Block{llm.Text(answer)}}, nil
}

// askSchema is the ask_advisor tool's argument schema: one question.
var askSchema = json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","description":"The question, with what you plan to do. At most 4000 characters."}},"required":["question"],"additionalProperties":false}`)

// ParseQuestion validates the arguments of an ask_advisor call and
// returns the question, trimmed; its errors are written for the model.
func ParseQuestion(args json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		return "", errors.New("ask_advisor: question is required")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(args, &raw); err != nil {
		return "", fmt.Errorf("ask_advisor: arguments must be a JSON object with a question: %v", err)
	}
	for k := range raw {
		if k != "question" {
			return "", fmt.Errorf("ask_advisor: unknown argument %q (it takes only question)", k)
		}
	}
	var q string
	if v, ok := raw["question"]; !ok {
		return "", errors.New("ask_advisor: question is required")
	} else if err := json.Unmarshal(v, &q); err != nil {
		return "", errors.New("ask_advisor: question must be a string")
	}
	q = strings.TrimSpace(q)
	switch n := utf8.RuneCountInString(q); {
	case n == 0:
		return "", errors.New("ask_advisor: question is empty")
	case n > MaxQuestion:
		return "", fmt.Errorf("ask_advisor: question is %d characters, at most %d; ask something shorter", n, MaxQuestion)
	}
	return q, nil
}

// ConsultError words, for the agent, why a consult gave no answer.
func ConsultError(err error) string {
	switch {
	case errors.Is(err, ErrConsultLimit):
		return "The advisor did not answer: " + strings.TrimPrefix(err.Error(), "advisor: ") + ". Go on with your own judgement."
	case errors.Is(err, ErrConsultWithheld):
		return "The advisor answers no questions here: " + strings.TrimPrefix(err.Error(), "advisor: ") + ". Go on with your own judgement."
	case errors.Is(err, ErrStopped), errors.Is(err, ErrNoConsultModel):
		return "The advisor is unavailable. Go on with your own judgement."
	}
	return "The advisor did not answer (" + strings.TrimPrefix(err.Error(), "advisor: ") + "). Go on with your own judgement."
}
