package history_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func plan(text string) session.Entry {
	return session.Entry{Body: &session.Custom{
		CustomType: "plan-mode-context", Content: []llm.Block{llm.Text(text)}, InContext: true,
	}}
}

func TestUpdateDedupe(t *testing.T) {
	opts := history.AdvisorOptions(nil)
	var r history.Renderer
	steps := []struct {
		entries       []session.Entry
		context       string
		wantPlan      string // "" none, "full" or "unchanged"
		wantAgentsMD  string
		wantUnchanged int
	}{
		{[]session.Entry{plan("A"), userMsg("go")}, "rules", "full", "full", 0},
		{[]session.Entry{plan("A"), userMsg("go")}, "rules", "unchanged", "unchanged", 2},
		{[]session.Entry{plan("B"), userMsg("go")}, "rules", "full", "unchanged", 1},
		{[]session.Entry{plan("A"), userMsg("go")}, "rules v2", "full", "full", 0},
		// Trailing and leading white space do not make a change.
		{[]session.Entry{plan("\nA  \n"), userMsg("go")}, "rules v2\n", "unchanged", "unchanged", 2},
	}
	for i, s := range steps {
		opts.Context = []history.PrimaryContext{{Kind: "AGENTS.md", Text: s.context}}
		out := r.Update(s.entries, opts)
		if got := strings.Count(out, history.Unchanged); got != s.wantUnchanged {
			t.Errorf("step %d: %d unchanged markers, want %d:\n%s", i+1, got, s.wantUnchanged, out)
		}
		if !strings.HasPrefix(out, history.Heading+"\n\n") {
			t.Errorf("step %d: update does not open with the heading:\n%s", i+1, out)
		}
		checkStructure(t, out, true)
	}
}

func TestUpdateReset(t *testing.T) {
	opts := history.AdvisorOptions(nil)
	var r history.Renderer
	r.Update([]session.Entry{plan("A"), userMsg("go")}, opts)
	r.Reset()
	out := r.Update([]session.Entry{plan("A"), userMsg("go")}, opts)
	if strings.Contains(out, history.Unchanged) || !strings.Contains(out, "\nA\n") {
		t.Errorf("after Reset the plan is not shown in full:\n%s", out)
	}
}

// An update that shows nothing leaves the remembered context alone: the
// context it would have shown was never sent.
func TestEmptyUpdateKeepsContextState(t *testing.T) {
	opts := history.AdvisorOptions(nil)
	var r history.Renderer
	opts.Context = []history.PrimaryContext{{Kind: "system", Text: "v1"}}
	r.Update([]session.Entry{userMsg("go")}, opts)
	opts.Context[0].Text = "v2"
	if out := r.Update([]session.Entry{custom("advisor", "note", true)}, opts); out != "" {
		t.Fatalf("update of advice alone = %q, want none", out)
	}
	out := r.Update([]session.Entry{userMsg("go")}, opts)
	if !strings.Contains(out, "\nv2\n") {
		t.Errorf("context not sent before is not shown in full:\n%s", out)
	}
}

// Several pending deltas coalesce into one message: one heading, and a
// call meets its result across the delta boundary.
func TestUpdateCoalesces(t *testing.T) {
	d1 := []session.Entry{userMsg("run the tests"), agentMsg(call("c1", "bash", map[string]any{"command": "go test ./..."}))}
	d2 := []session.Entry{result("c1", false, "ok\tpkg\t0.1s"), agentMsg(llm.Text("All tests pass."))}
	var r history.Renderer
	out := r.Update(slices.Concat(d1, d2), history.AdvisorOptions(nil))
	if n := strings.Count(out, history.Heading); n != 1 {
		t.Errorf("%d headings, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "→ bash(go test ./...) ⇒ ok · 1 line") {
		t.Errorf("the call did not meet its result:\n%s", out)
	}
	if strings.Contains(out, "earlier call") || strings.Count(out, "**agent**:") != 1 {
		t.Errorf("unexpected orphan or label:\n%s", out)
	}

	// Rendered apart, the first is pending and the second an orphan.
	var r2 history.Renderer
	a, b := r2.Update(d1, history.AdvisorOptions(nil)), r2.Update(d2, history.AdvisorOptions(nil))
	if !strings.Contains(a, "⇒ pending") || !strings.Contains(b, "→ (result of an earlier call) ⇒ ok · 1 line") {
		t.Errorf("separate updates:\n%s\n%s", a, b)
	}
}

func TestUpdateIsDeterministic(t *testing.T) {
	entries := []session.Entry{plan("A"), userMsg("go"), agentMsg(llm.Thinking("hm", ""), call("c1", "read", map[string]any{"path": "a", "limit": 3, "offset": 1}))}
	opts := history.AdvisorOptions(history.NewRedactor([]string{"API_KEY=abcdefgh12345"}, nil))
	var want string
	for i := range 20 {
		var r history.Renderer
		got := r.Update(entries, opts)
		if i == 0 {
			want = got
		} else if got != want {
			t.Fatalf("run %d differs:\n%s\nwant:\n%s", i, got, want)
		}
	}
}

func TestRendererConcurrentUse(t *testing.T) {
	var r history.Renderer
	opts := history.AdvisorOptions(nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				if (i+j)%10 == 0 {
					r.Reset()
				}
				r.Update([]session.Entry{plan("A"), userMsg("go")}, opts)
			}
		})
	}
	wg.Wait()
}
