package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// blockerNote is an advisor's note as a host steers it.
func blockerNote(text string) session.Custom {
	return session.Custom{
		CustomType: agent.CustomAdvisor, Content: []llm.Block{llm.Text(`<advisory severity="blocker">` + text + `</advisory>`)},
		Display: true, InContext: true,
	}
}

// aborting is the steer options of a blocker.
var aborting = agent.SteerOptions{Interrupt: true, AbortRequest: true}

// onDelta calls fn at the n-th message_delta (from 1) of the agent's life.
func onDelta(a *agent.Agent, n int, fn func()) {
	var mu sync.Mutex
	seen := 0
	a.Subscribe(func(ev agent.Event) {
		if ev.Type != agent.EventMessageDelta {
			return
		}
		mu.Lock()
		seen++
		hit := seen == n
		mu.Unlock()
		if hit {
			fn()
		}
	})
}

// branchTexts returns the text of every entry on the session's branch.
func branchTexts(t *testing.T, s *session.Session) []string {
	t.Helper()
	path, err := s.Path(s.Leaf())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range path {
		switch b := e.Body.(type) {
		case *session.Message:
			out = append(out, b.Message.Text())
		case *session.Custom:
			out = append(out, llm.Message{Content: b.Content}.Text())
		}
	}
	return out
}

// steered runs a prompt of "go" on an agent over script, after setup
// (which arranges the steers), and returns the env, the agent, its events
// and Prompt's error.
func steered(t *testing.T, script string, setup func(a *agent.Agent)) (*env, *agent.Agent, *recorder, error) {
	t.Helper()
	e := newEnv(t, script)
	a := e.agent(t, e.options())
	r := record(t, a)
	setup(a)
	return e, a, r, a.Prompt(t.Context(), "go")
}

// wantTypes fails t unless the recorded event types are want.
func wantTypes(t *testing.T, r *recorder, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// stalledReply is a fakellm step whose stream sends its first text delta,
// then nothing: a request that would never end by itself.
const stalledReply = `
      - text: I will now delete the whole tests folder to make the build pass
        chunk: 8
        fault: {stall: true, cut_after: 4}`

func TestAbortingSteerReissuesTheRequest(t *testing.T) {
	e, a, r, err := steered(t, `
rules:
  - steps:`+stalledReply+`
      - text: Understood, I will fix the test instead.
`, func(a *agent.Agent) {
		onDelta(a, 1, func() { a.SteerCustomWith(blockerNote("Deleting the tests hides the failure."), aborting) })
	})
	if err != nil {
		t.Fatal(err)
	}
	wantTypes(t, r, "turn_start", "step_start", "message_delta", "request_aborted", "steer_delivered",
		"message_delta", "message_end", "step_end", "turn_end", "idle")
	if n := len(e.srv.Requests()); n != 2 {
		t.Fatalf("the model got %d requests, want 2", n)
	}
	// The request is sent again with the note, and without the cut reply
	// or the marker.
	second := e.body(t, 1)
	inOrder(t, "second request", second, "go", "Deleting the tests hides the failure.")
	for _, gone := range []string{"delete the whole", "model request aborted"} {
		if strings.Contains(second, gone) {
			t.Errorf("second request holds %q:\n%s", gone, second)
		}
	}
	if strings.Contains(e.body(t, 0), "Deleting the tests") {
		t.Errorf("first request already held the note")
	}

	// The session: prompt, marker, note, reply; nothing of the cut reply.
	for _, txt := range branchTexts(t, e.sess) {
		if strings.Contains(txt, "delete the whole") {
			t.Errorf("the session keeps the cut reply: %q", txt)
		}
	}
	ab := r.first(t, agent.EventRequestAborted)
	if ab.Reason != agent.InterruptSteer || ab.Entry == nil || ab.Usage == nil || ab.Step != 1 {
		t.Fatalf("request_aborted: %+v", ab)
	}
	marker, ok := ab.Entry.Body.(*session.Custom)
	if !ok || marker.CustomType != agent.CustomRequestAborted || !marker.Display || marker.InContext {
		t.Fatalf("marker: %+v", ab.Entry.Body)
	}
	// The aborted request's usage (Anthropic's message_start) is recorded
	// in the marker and counted in the agent's totals.
	var details struct {
		Model string    `json:"model"`
		Usage llm.Usage `json:"usage"`
	}
	if err := json.Unmarshal(marker.Details, &details); err != nil {
		t.Fatal(err)
	}
	if details.Model != "anthropic/m" || details.Usage.PromptTokens() == 0 || details.Usage != *ab.Usage {
		t.Errorf("marker details %s, event usage %+v", marker.Details, *ab.Usage)
	}
	end := r.first(t, agent.EventMessageEnd)
	if got, want := a.State().Usage, details.Usage.Add(*end.Usage); got != want {
		t.Errorf("agent usage %+v, want the aborted request's plus the reply's, %+v", got, want)
	}
	stepEnd := r.first(t, agent.EventStepEnd)
	if len(stepEnd.Entries) != 2 || stepEnd.Entries[0].ID != ab.Entry.ID || stepEnd.Entries[1].ID != end.Entry.ID {
		t.Errorf("step_end entries: %+v", stepEnd.Entries)
	}
}

// Each blocker aborts one request: a second blocker aborts the request
// sent again after the first, and the third request carries both.
func TestEachAbortingSteerAbortsOneRequest(t *testing.T) {
	e, _, r, err := steered(t, `
rules:
  - steps:`+stalledReply+stalledReply+`
      - text: Stopping.
`, func(a *agent.Agent) {
		onDelta(a, 1, func() { a.SteerCustomWith(blockerNote("FIRST-NOTE"), aborting) })
		onDelta(a, 2, func() { a.SteerCustomWith(blockerNote("SECOND-NOTE"), aborting) })
	})
	if err != nil {
		t.Fatal(err)
	}
	aborts := 0
	for _, ev := range r.all() {
		if ev.Type == agent.EventRequestAborted {
			aborts++
		}
	}
	if n := len(e.srv.Requests()); n != 3 || aborts != 2 {
		t.Fatalf("%d requests and %d aborts, want 3 and 2", n, aborts)
	}
	if b := e.body(t, 1); !strings.Contains(b, "FIRST-NOTE") || strings.Contains(b, "SECOND-NOTE") {
		t.Errorf("second request: %s", b)
	}
	inOrder(t, "third request", e.body(t, 2), "FIRST-NOTE", "SECOND-NOTE")
}

// A blocker queued before the request goes out is delivered before it:
// no request is started only to be aborted.
func TestAbortingSteerBeforeTheRequestGoesFirst(t *testing.T) {
	e, _, r, err := steered(t, `
rules:
  - steps:
      - text: Noted.
`, func(a *agent.Agent) {
		on(a, agent.EventStepStart, func(agent.Event) { a.SteerCustomWith(blockerNote("EARLY-NOTE"), aborting) })
	})
	if err != nil {
		t.Fatal(err)
	}
	wantTypes(t, r, "turn_start", "step_start", "steer_delivered", "message_delta", "message_end", "step_end", "turn_end", "idle")
	if n := len(e.srv.Requests()); n != 1 {
		t.Fatalf("the model got %d requests, want 1", n)
	}
	inOrder(t, "request", e.body(t, 0), "go", "EARLY-NOTE")
}

// An interrupting steer without AbortRequest (an advisor's concern) does
// not cut the reply: it is kept whole, its call is skipped, and the steer
// comes at the boundary.
func TestInterruptingSteerKeepsTheRequest(t *testing.T) {
	e, _, r, err := steered(t, `
rules:
  - steps:
      - text: Running the whole suite again, then I will look at the result.
        chunk: 4
        tool_calls: [{id: call_1, name: bash, arguments: {command: "echo ran"}}]
      - text: OK.
`, func(a *agent.Agent) {
		onDelta(a, 1, func() { a.SteerCustom(blockerNote("CONCERN-NOTE"), true) })
	})
	if err != nil {
		t.Fatal(err)
	}
	wantTypes(t, r, "turn_start", "step_start", "message_delta", "message_end", "tool_end", "step_end", "steer_delivered",
		"step_start", "message_delta", "message_end", "step_end", "turn_end", "idle")
	if got := r.first(t, agent.EventMessageEnd).Entry.Body.(*session.Message).Message.Text(); got != "Running the whole suite again, then I will look at the result." {
		t.Errorf("first reply: %q", got)
	}
	inOrder(t, "second request", e.body(t, 1), "Running the whole suite again", `"tool_use_id":"call_1"`, "not run", "CONCERN-NOTE")
}

// A user abort while the request is sent again ends the run, as anywhere.
func TestAbortDuringTheReissuedRequestWins(t *testing.T) {
	e, a, r, err := steered(t, `
rules:
  - steps:`+stalledReply+stalledReply+`
`, func(a *agent.Agent) {
		onDelta(a, 1, func() { a.SteerCustomWith(blockerNote("THE-NOTE"), aborting) })
		onDelta(a, 2, a.Abort)
	})
	if !errors.Is(err, agent.ErrAborted) {
		t.Fatalf("Prompt: %v, want ErrAborted", err)
	}
	wantTypes(t, r, "turn_start", "step_start", "message_delta", "request_aborted", "steer_delivered",
		"message_delta", "message_end", "step_end", "aborted", "turn_end", "idle")
	if n := len(e.srv.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}
	// The user's abort keeps the second partial reply, as it always does.
	if end := r.first(t, agent.EventMessageEnd); end.StopReason != agent.StopAborted {
		t.Errorf("message_end: %+v", end)
	}
	if st := a.State(); !st.Aborted {
		t.Errorf("state: %+v", st)
	}
}

// A user abort and a blocker at the same moment: the abort wins, and no
// request is sent again.
func TestAbortWithABlockerSendsNothingAgain(t *testing.T) {
	e, a, r, err := steered(t, `
rules:
  - steps:`+stalledReply+`
`, func(a *agent.Agent) {
		onDelta(a, 1, func() {
			a.SteerCustomWith(blockerNote("THE-NOTE"), aborting)
			a.Abort()
		})
	})
	if !errors.Is(err, agent.ErrAborted) {
		t.Fatalf("Prompt: %v, want ErrAborted", err)
	}
	wantTypes(t, r, "turn_start", "step_start", "message_delta", "message_end", "step_end", "aborted", "turn_end", "idle")
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1", n)
	}
	// The blocker stays queued for the user's next run, as a steer does.
	if st := a.State(); st.QueuedSteers != 1 {
		t.Errorf("queued steers: %d, want 1", st.QueuedSteers)
	}
}
