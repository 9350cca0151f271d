package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// BenchmarkStep measures one step (a model reply with one tool call, the
// call of a trivial in-memory tool, both entries written to the session
// file, every event emitted) against sessions already holding 10, 1,000
// and 10,000 steps. The model is an in-process Go value with no latency.
// b.N steps run in one turn, so the session grows by b.N steps during
// the run; -benchtime=2000x keeps that growth small beside the prefill.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("prefill=%d", n), func(b *testing.B) {
			template := prefilled(b, n)
			s := copySession(b, template)
			model := &loopModel{steps: b.N}
			a, err := agent.New(agent.Options{Model: model, Session: s, Tools: []tools.Tool{echoTool{}}, System: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			events := 0
			a.Subscribe(func(agent.Event) { events++ })
			b.ReportAllocs()
			b.ResetTimer()
			if err := a.Prompt(context.Background(), "go"); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if model.calls != b.N+1 {
				b.Fatalf("model called %d times, want %d", model.calls, b.N+1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/step")
		})
	}
}

// loopModel calls the echo tool steps times, then answers.
type loopModel struct {
	steps, calls int
}

var (
	echoArgs   = json.RawMessage(`{"text":"ok"}`)
	callReply1 = []llm.Event{
		{Type: llm.EventToolCallStart, ToolCallID: "c", ToolName: "echo"},
		{Type: llm.EventToolCallEnd, Arguments: echoArgs},
		{Type: llm.EventUsage, Usage: llm.Usage{Input: 100, Output: 10}},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}
	endReply = []llm.Event{
		{Type: llm.EventTextDelta, Text: "done"},
		{Type: llm.EventStop, StopReason: llm.StopEndTurn},
	}
)

func (m *loopModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	m.calls++
	reply := endReply
	if m.calls <= m.steps {
		reply = callReply1
	}
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range reply {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// prefilled returns the file of a session holding a prompt and n steps,
// made once per size and benchmark run.
func prefilled(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("vigil-agent-bench-%d-%d", os.Getpid(), n))
	path := filepath.Join(dir, "template.jsonl")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	os.MkdirAll(dir, 0o700)
	b.Cleanup(func() { os.RemoveAll(dir) })
	s, err := session.Create(path, session.Header{ID: "bench", Cwd: dir}, session.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	must := func(_ session.Entry, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(s.Append(&session.Message{Message: llm.UserText("start")}))
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		must(s.Append(&session.Message{
			Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolCall(id, "echo", echoArgs)}},
			Usage:      llm.Usage{Input: 100, Output: 10},
			StopReason: llm.StopToolUse,
		}))
		must(s.Append(&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, false, llm.Text("ok"))}}}))
	}
	return path
}

// copySession opens a copy of the session file at path.
func copySession(b *testing.B, path string) *session.Session {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "s.jsonl")
	in, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	out.Close()
	s, err := session.Open(dst, session.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
