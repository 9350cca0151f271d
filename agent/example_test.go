package agent_test

import (
	"context"
	"fmt"
	"iter"
	"os"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// cannedModel answers the first request with a call of the echo tool and
// the second with text; a stand-in for a real adapter.
type cannedModel struct{ n int }

func (m *cannedModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	m.n++
	reply := []llm.Event{
		{Type: llm.EventToolCallStart, ToolCallID: "call_1", ToolName: "echo"},
		{Type: llm.EventToolCallEnd, Arguments: []byte(`{"text":"hello"}`)},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}
	if m.n > 1 {
		reply = []llm.Event{
			{Type: llm.EventTextDelta, Text: "The tool said hello."},
			{Type: llm.EventStop, StopReason: llm.StopEndTurn},
		}
	}
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range reply {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func Example() {
	dir, _ := os.MkdirTemp("", "agent-example")
	defer os.RemoveAll(dir)
	sess, err := session.NewManager(dir, session.Options{}).New(dir)
	if err != nil {
		panic(err)
	}
	defer sess.Close()

	a, err := agent.New(agent.Options{
		Model:   &cannedModel{},
		System:  "You are a coding agent.",
		Session: sess,
		Tools:   []tools.Tool{echoTool{}},
		// A hook sees every step boundary; an advisor attaches here.
		Hooks: []agent.Hook{agent.HookFunc(func(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
			fmt.Printf("  boundary after step %d (final: %v)\n", b.Step, b.Final)
			return nil
		})},
	})
	if err != nil {
		panic(err)
	}
	a.Subscribe(func(ev agent.Event) {
		switch ev.Type {
		case agent.EventToolEnd:
			fmt.Printf("%s %s: %s\n", ev.Type, ev.Tool, ev.Summary)
		case agent.EventMessageDelta:
			fmt.Printf("%s %q\n", ev.Type, ev.Text)
		default:
			fmt.Println(ev.Type)
		}
	})
	if err := a.Prompt(context.Background(), "Say hello through the tool."); err != nil {
		panic(err)
	}
	// Output:
	// turn_start
	// step_start
	// message_end
	// tool_start
	// tool_end echo: hello
	// step_end
	//   boundary after step 1 (final: false)
	// step_start
	// message_delta "The tool said hello."
	// message_end
	// step_end
	//   boundary after step 2 (final: true)
	// turn_end
	// idle
}
