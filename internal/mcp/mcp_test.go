package mcp

import (
	"context"
	"iter"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/sidecar"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/transcript"
)

// connect serves New(ask) over in-memory transports and returns a client
// session on it.
func connect(t testing.TB, ask advisor.Consulter) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := New("test", ask).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return cs
}

func call(t testing.TB, cs *sdk.ClientSession, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: advisor.AskToolName, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError
}

// The server offers ask_advisor alone, with the agent tool's description
// and schema; a call asks the question and returns the answer, and bad
// arguments or an advisor that cannot answer are error results.
func TestServerOffersAskAdvisor(t *testing.T) {
	var asked []string
	cs := connect(t, func(_ context.Context, q string) (string, error) {
		asked = append(asked, q)
		if q == "down?" {
			return "", sidecar.ErrUnavailable
		}
		return "Answer: " + q, nil
	})
	if got := cs.InitializeResult().ServerInfo.Name; got != ServerName {
		t.Errorf("server name %q, want %q", got, ServerName)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != advisor.AskToolName || list.Tools[0].Description != advisor.AskDescription {
		t.Fatalf("tools %+v", list.Tools)
	}
	if text, isErr := call(t, cs, map[string]any{"question": " Is it safe? "}); isErr || text != "Answer: Is it safe?" {
		t.Errorf("call = %q, error %v", text, isErr)
	}
	if text, isErr := call(t, cs, map[string]any{"question": "down?"}); !isErr || !strings.Contains(text, "unavailable") {
		t.Errorf("unavailable = %q, error %v", text, isErr)
	}
	if text, isErr := call(t, cs, map[string]any{"q": "x"}); !isErr || !strings.Contains(text, "ask_advisor: ") {
		t.Errorf("bad arguments = %q, error %v", text, isErr)
	}
	if !slices.Equal(asked, []string{"Is it safe?", "down?"}) {
		t.Errorf("asked %q", asked)
	}
}

// With no sidecar the tool answers at once that the advisor is
// unavailable.
func TestNoSidecarIsUnavailableAtOnce(t *testing.T) {
	cs := connect(t, SidecarAsker(func() (sidecar.Info, bool) { return sidecar.Info{}, false }))
	start := time.Now()
	text, isErr := call(t, cs, map[string]any{"question": "Anyone?"})
	if !isErr || !strings.Contains(text, "The advisor is unavailable (no vigil sidecar watches this session") {
		t.Errorf("call = %q, error %v", text, isErr)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

// quietFollower is a transcript that never grows.
type quietFollower struct{}

func (quietFollower) Poll() (transcript.Batch, error)          { return transcript.Batch{}, nil }
func (quietFollower) Settle() (transcript.Batch, error)        { return transcript.Batch{}, nil }
func (quietFollower) Holds(string) bool                        { return false }
func (quietFollower) Release(string) (transcript.Batch, error) { return transcript.Batch{}, nil }

// instantModel answers every request at once.
type instantModel struct{ text string }

func (m instantModel) Stream(context.Context, llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range []llm.Event{
			{Type: llm.EventTextDelta, Text: m.text},
			{Type: llm.EventUsage, Usage: llm.Usage{Input: 10, Output: 4}},
			{Type: llm.EventStop, StopReason: llm.StopEndTurn},
		} {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// sidecarWorld is a sidecar with a real advisor runtime (over an instant
// model) serving on a socket, and an MCP client whose server routes to
// it.
func sidecarWorld(t testing.TB, answer string) *sdk.ClientSession {
	t.Helper()
	d, err := os.MkdirTemp("", "vmcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir, err := sidecar.RuntimeDir(func(k string) (string, bool) { return d + "/run", k == "VIGIL_RUNTIME_DIR" })
	if err != nil {
		t.Fatal(err)
	}
	host := sidecar.NewHost()
	rt, err := advisor.New(advisor.Options{Model: instantModel{answer}, Host: host, ConsultMaxPerRun: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	rt.Start(context.Background())
	key := sidecar.Key{Agent: sidecar.AgentClaudeCode, Session: "s1"}
	sc := sidecar.New(sidecar.Options{Key: key, Host: host, Advisor: rt, Transcript: "/t/s1.jsonl", Follow: func(string) sidecar.Follower { return quietFollower{} }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan byte, 1)
	go func() {
		done <- sidecar.Serve(ctx, sc, sidecar.ServeOptions{Dir: dir, Info: sidecar.Info{Key: key}, Ready: chanWriter(ready)})
	}()
	<-ready
	t.Cleanup(func() {
		cancel()
		<-done
		rt.Stop()
	})
	return connect(t, SidecarAsker(func() (sidecar.Info, bool) { return dir.ReadInfo(key) }))
}

// chanWriter is a Ready pipe on a channel.
type chanWriter chan byte

func (c chanWriter) Write(b []byte) (int, error) {
	for _, x := range b {
		c <- x
	}
	return len(b), nil
}
func (c chanWriter) Close() error { return nil }

// End to end through the MCP server, the socket and the sidecar to the
// advisor runtime: the answer comes back escaped, as the runtime gives it.
func TestAskThroughTheSidecar(t *testing.T) {
	cs := sidecarWorld(t, "Keep the <old> tests & ship.")
	if text, isErr := call(t, cs, map[string]any{"question": "Delete the old tests?"}); isErr || text != "Keep the &lt;old&gt; tests &amp; ship." {
		t.Errorf("call = %q, error %v", text, isErr)
	}
}

// BenchmarkMCPConsult measures what vigil adds to a consult through
// `vigil mcp`, beyond the model call: an MCP client's tools/call over an
// in-memory transport, the server, the sidecar's socket, the sidecar's
// transcript read, the advisor runtime's consult turn with a model that
// answers at once, and back. µs-median and µs-p90 are the distribution.
func BenchmarkMCPConsult(b *testing.B) {
	cs := sidecarWorld(b, "Fine.")
	var times []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if text, isErr := call(b, cs, map[string]any{"question": "Is it safe to delete the legacy fallback now?"}); isErr || text != "Fine." {
			b.Fatalf("call = %q, error %v", text, isErr)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "µs-median")
	b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds())/1e3, "µs-p90")
}
