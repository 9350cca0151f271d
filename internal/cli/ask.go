package cli

import (
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/internal/streamout"
	"github.com/vigil-dev/vigil/llm"
)

type askCmd struct {
	Model     string   `short:"m" required:"" help:"Model reference: provider/model[:thinking], or a bare model id." placeholder:"REF"`
	System    string   `help:"System prompt."`
	MaxTokens int      `help:"Cap the reply at this many tokens (0: the model's maximum)."`
	File      string   `help:"models.yml to read instead of the one in the agent folder." type:"path" placeholder:"PATH"`
	Prompt    []string `arg:"" help:"The prompt."`
}

func (c *askCmd) Run(e *env) error {
	reg, err := e.registry(c.File)
	if err != nil {
		return err
	}
	res, err := reg.Resolve(c.Model)
	if err != nil {
		return err
	}
	model, err := res.Open()
	if err != nil {
		return err
	}
	req := llm.Request{
		System:    c.System,
		Messages:  []llm.Message{llm.UserText(strings.Join(c.Prompt, " "))},
		MaxTokens: c.MaxTokens,
	}
	resp, err := streamout.Stream(e.ctx, e.stdout, e.stderr, "", model, req)
	if err != nil {
		return err
	}
	for _, c := range resp.Message.ToolCalls() {
		fmt.Fprintf(e.stderr, "tool call %s %s %s\n", c.ID, c.Name, c.Arguments)
	}
	fmt.Fprintf(e.stderr, "%s · %s · %s\n", res.Ref(), streamout.Usage(resp.Usage), streamout.Cost(res.Info.Price, resp.Usage))
	return nil
}
