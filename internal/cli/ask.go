package cli

import (
	"fmt"
	"io"
	"strings"

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
	resp, err := streamTo(e, e.stderr, "", model, req)
	if err != nil {
		return err
	}
	for _, c := range resp.Message.ToolCalls() {
		fmt.Fprintf(e.stderr, "tool call %s %s %s\n", c.ID, c.Name, c.Arguments)
	}
	fmt.Fprintf(e.stderr, "%s · %s · %s\n", res.Ref(), usageLine(resp.Usage), costLine(res.Info.Price, resp.Usage))
	return nil
}

// streamTo streams a reply: text to stdout as it arrives, thinking to
// thinkOut, the text led by textPrefix. Tool calls are left to the caller. It returns the accumulated reply, partial on error.
func streamTo(e *env, thinkOut io.Writer, textPrefix string, model llm.Model, req llm.Request) (*llm.Response, error) {
	var acc llm.Accumulator
	thinking, texting := false, false
	for ev, err := range model.Stream(e.ctx, req) {
		if err != nil {
			fmt.Fprintln(e.stdout)
			return acc.Response(), err
		}
		if err := acc.Add(ev); err != nil {
			return acc.Response(), err
		}
		switch ev.Type {
		case llm.EventThinkingDelta:
			if !thinking {
				fmt.Fprint(thinkOut, "thinking: ")
				thinking = true
			}
			fmt.Fprint(thinkOut, ev.Text)
		case llm.EventThinkingEnd:
			if thinking {
				fmt.Fprintln(thinkOut)
				thinking = false
			}
		case llm.EventTextDelta:
			if !texting {
				fmt.Fprint(e.stdout, textPrefix)
				texting = true
			}
			fmt.Fprint(e.stdout, ev.Text)
		case llm.EventStop:
			fmt.Fprintln(e.stdout)
		}
	}
	return acc.Response(), nil
}

func usageLine(u llm.Usage) string {
	s := fmt.Sprintf("%d in, %d out", u.Input, u.Output)
	if u.CacheRead > 0 {
		s += fmt.Sprintf(", %d cache read", u.CacheRead)
	}
	if u.CacheWrite > 0 {
		s += fmt.Sprintf(", %d cache write", u.CacheWrite)
	}
	return s + " tokens"
}

func costLine(p llm.Price, u llm.Usage) string {
	if p == (llm.Price{}) {
		return "no price on file"
	}
	return fmt.Sprintf("$%.6f", p.Cost(u))
}
