//go:build linux

package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/tools"
)

// fillDisk makes the next session append fail with EFBIG, as a full disk
// would, and the disk is freed again by the test.
type fillDisk struct{ file string }

func (fillDisk) Definition() llm.Tool {
	return llm.Tool{Name: "fill", Schema: json.RawMessage(`{"type":"object"}`)}
}
func (f fillDisk) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	fi, _ := os.Stat(f.file)
	lim := uint64(fi.Size())
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: ^uint64(0)})
	return tools.Result{Content: []llm.Block{llm.Text("ok")}}, nil
}

// A tool result that cannot be written (a full disk, simulated with
// RLIMIT_FSIZE) must not leave the tool call without a result in the next
// request, which every provider rejects.
func TestFailedResultWriteLeavesNoDanglingCall(t *testing.T) {
	signal.Ignore(syscall.SIGXFSZ)
	sess := memSession(t)
	var second llm.Request
	m := &scripted{replies: []func(llm.Request) []llm.Event{
		callReply("call_1", "fill", map[string]any{}),
		func(r llm.Request) []llm.Event { second = r; return textReply("done")(r) },
	}}
	a, err := agent.New(agent.Options{Model: m, Session: sess, Tools: []tools.Tool{fillDisk{sess.File()}}})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Prompt(context.Background(), "first")
	if err == nil {
		t.Fatal("first prompt succeeded though its tool result could not be written")
	}
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: ^uint64(0), Max: ^uint64(0)})
	if err := a.Prompt(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	calls, results := map[string]bool{}, map[string]bool{}
	for _, msg := range second.Messages {
		for _, b := range msg.Content {
			switch b.Type {
			case llm.BlockToolCall:
				calls[b.ID] = true
			case llm.BlockToolResult:
				results[b.ID] = true
			}
		}
	}
	for id := range calls {
		if !results[id] {
			t.Errorf("second request carries tool call %s without a result (providers reject it with 400)", id)
		}
	}
}
