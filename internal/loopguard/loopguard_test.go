package loopguard_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/loopguard"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// run drives vigil's agent with the guard on a fakellm script and returns
// the request bodies the model got.
func run(t *testing.T, repeats int, script string) []string {
	t.Helper()
	dir := t.TempDir()
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ts, err := tools.NewSession(tools.Options{Cwd: dir, ArtifactsDir: sess.ArtifactsDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.StartTest(t, fakellm.MustParse(t, script))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{
		Model: m, Info: llm.ModelInfo{Provider: "anthropic", ID: "m", ContextWindow: 200000},
		System: "You are a test agent.", Session: sess, Tools: ts.Tools(),
		Hooks: []agent.Hook{loopguard.New(repeats)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Prompt(context.Background(), "Is the build done?"); err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, r := range srv.Requests() {
		bodies = append(bodies, string(r.Body))
	}
	return bodies
}

const poll = `
      - tool_calls:
          - name: bash
            arguments: {command: "cat build.status"}
`

// TestGuardSpeaksOnceAtTheNthRepeat runs the agent through five steps
// that make the same call and checks that the sixth request, and only it,
// carries the guard's message, once.
func TestGuardSpeaksOnceAtTheNthRepeat(t *testing.T) {
	bodies := run(t, 5, "rules:\n  - steps:"+strings.Repeat(poll, 6)+"      - text: The build status file is missing; I stop here.\n")
	if len(bodies) != 7 {
		t.Fatalf("%d requests, want 7", len(bodies))
	}
	for i, b := range bodies {
		n := strings.Count(b, "[vigil loop guard]")
		want := 0
		if i >= 5 {
			want = 1 // in the context from the sixth request on, once
		}
		if n != want {
			t.Errorf("request %d carries the guard's message %d times, want %d", i+1, n, want)
		}
	}
	if !strings.Contains(bodies[5], "The last 5 steps made the same calls (`cat build.status`)") {
		t.Errorf("the sixth request lacks the guard's message:\n%s", bodies[5])
	}
}

// TestGuardQuietWhenCallsChange checks that calls that differ, however
// alike, and a streak shorter than the setting, say nothing.
func TestGuardQuietWhenCallsChange(t *testing.T) {
	var steps strings.Builder
	for i := range 6 {
		steps.WriteString("      - tool_calls:\n          - name: bash\n            arguments: {command: \"cat build" + string(rune('a'+i)) + ".status\"}\n")
	}
	bodies := run(t, 5, "rules:\n  - steps:\n"+steps.String()+strings.Repeat(poll, 4)+"      - text: Done.\n")
	for i, b := range bodies {
		if strings.Contains(b, "[vigil loop guard]") {
			t.Errorf("request %d carries the guard's message", i+1)
		}
	}
}
