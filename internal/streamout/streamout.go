// Package streamout prints a model's streamed reply as it arrives, for the
// commands that show one (vigil ask, the wire demo), and its usage and
// cost in one line each.
package streamout

import (
	"context"
	"fmt"
	"io"

	"github.com/vigil-dev/vigil/llm"
)

// Stream streams a reply of model to req: text to out as it arrives, led
// by textPrefix; thinking to thinkOut. Tool calls are left to the caller.
// It returns the accumulated reply, partial on error.
func Stream(ctx context.Context, out, thinkOut io.Writer, textPrefix string, model llm.Model, req llm.Request) (*llm.Response, error) {
	var acc llm.Accumulator
	thinking, texting := false, false
	for ev, err := range model.Stream(ctx, req) {
		if err != nil {
			fmt.Fprintln(out)
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
				fmt.Fprint(out, textPrefix)
				texting = true
			}
			fmt.Fprint(out, ev.Text)
		case llm.EventStop:
			fmt.Fprintln(out)
		}
	}
	return acc.Response(), nil
}

// Usage says a reply's token counts: "12 in, 4 out, 10 cache read tokens".
func Usage(u llm.Usage) string {
	s := fmt.Sprintf("%d in, %d out", u.Input, u.Output)
	if u.CacheRead > 0 {
		s += fmt.Sprintf(", %d cache read", u.CacheRead)
	}
	if u.CacheWrite > 0 {
		s += fmt.Sprintf(", %d cache write", u.CacheWrite)
	}
	return s + " tokens"
}

// Cost says what u costs at p, or that no price is on file.
func Cost(p llm.Price, u llm.Usage) string {
	if p == (llm.Price{}) {
		return "no price on file"
	}
	return fmt.Sprintf("$%.6f", p.Cost(u))
}
