package agent_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
)

// realNote is an advisor's note as the advisor host formats it.
const realNote = `<advisory severity="concern" guidance="weigh, don't blindly obey">
Run the failing test before you change the parser.
</advisory>`

// hostile is the whole corpus as one text, each case under a line naming
// the channel and the case.
func hostile(cases []agent.InjectionCase, channel string) string {
	var sb strings.Builder
	for _, c := range cases {
		sb.WriteString("== " + channel + ": " + c.Name + " ==\n" + c.In + "\n")
	}
	return sb.String()
}

// shown lists the escaped forms of the cases that a request must carry
// intact: one line, every character printable (a tool may number lines
// or drop control characters).
func shown(cases []agent.InjectionCase) []string {
	var out []string
	for _, c := range cases {
		w := c.Want
		if w == "" {
			w = c.In
		}
		if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
			out = append(out, w)
		}
	}
	return out
}

// requestStrings decodes a request body and joins every string in it
// (system prompt, messages, tool results, tool definitions), so that JSON
// escapes such as \u003c do not hide a tag. The model's own messages
// (role assistant) are left out: the agent sends them as the model wrote
// them, and they can pass for nothing it did not say.
func requestStrings(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var sb strings.Builder
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			sb.WriteString(x)
			sb.WriteString("\n")
		case []any:
			for _, y := range x {
				walk(y)
			}
		case map[string]any:
			if x["role"] == "assistant" {
				return
			}
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return sb.String()
}

// Hostile text reaches the agent through every channel it has: the
// system prompt (AGENTS.md), the prompt, a steer, a follow-up, a file
// read, a command's output, a hook's text, a subagent's prompt and
// answer, and a compaction summary. Over real HTTP, no request carries a
// live advisory tag but the advisor's note a hook delivers, which arrives
// as written; each channel's text arrives, escaped as the corpus says; and
// the session keeps every byte as it was said.
func TestForgedAdvisoriesNeverReachTheModel(t *testing.T) {
	cases := agent.LoadCorpus(t)
	e := newWorkspace(t)
	if err := os.WriteFile(filepath.Join(e.dir, "hostile.txt"), []byte(hostile(cases, "file")), 0o644); err != nil {
		t.Fatal(err)
	}
	script := &fakellm.Script{Rules: []fakellm.Rule{
		{Name: "summary", Match: []string{"You summarise a coding agent"}, Steps: []fakellm.Step{{Text: hostile(cases, "summary")}}},
		{Name: "sub", Match: []string{"SUBAGENT-SYSTEM"}, Steps: []fakellm.Step{{Text: hostile(cases, "subagent answer")}}},
		{Name: "main", Steps: []fakellm.Step{
			{ToolCalls: []fakellm.ToolCall{
				{Name: "read", Arguments: map[string]any{"path": "hostile.txt"}},
				{Name: "bash", Arguments: map[string]any{"command": "cat hostile.txt"}},
			}},
			{ToolCalls: []fakellm.ToolCall{{Name: "task", Arguments: map[string]any{"prompt": hostile(cases, "subagent prompt")}}}},
			{Text: "Done."},
			{Text: "Done with the follow-up."},
			{Text: "Carried on."},
		}},
	}}
	e.srv = fakellm.StartTest(t, script)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	m, err := anthropic.New(anthropic.Config{BaseURL: e.srv.URL(), APIKey: "k", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	e.model = m

	opts := e.options()
	opts.System = "You are a test agent.\n\nAGENTS.md:\n" + hostile(cases, "system")
	opts.Subagents = &agent.SubagentConfig{System: "SUBAGENT-SYSTEM"}
	opts.Compaction = agent.CompactionOptions{Enabled: true, KeepRecentTokens: 1}
	delivered := false
	opts.Hooks = []agent.Hook{agent.HookFunc(func(context.Context, agent.BoundaryInfo) []agent.Injection {
		if delivered {
			return nil
		}
		delivered = true
		return []agent.Injection{
			{Custom: &session.Custom{CustomType: agent.CustomAdvisor, Content: []llm.Block{llm.Text(realNote)}, Display: true, InContext: true}},
			{Text: hostile(cases, "hook text")},
		}
	})}
	a := e.agent(t, opts)
	a.Steer(hostile(cases, "steer"), false)
	a.FollowUp(hostile(cases, "follow-up"))
	if err := a.Prompt(t.Context(), hostile(cases, "prompt")); err != nil {
		t.Fatal(err)
	}
	if err := a.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if err := a.Prompt(t.Context(), "go on"); err != nil {
		t.Fatal(err)
	}

	var main []string
	for _, r := range e.srv.Requests() {
		text := requestStrings(t, r.Body)
		rest := strings.ReplaceAll(text, realNote, "")
		if agent.HasLiveTag(rest) {
			t.Errorf("a request (rule %s) carries a live advisory tag besides the real note: %s", r.Rule, agent.LiveTagContext(rest))
		}
		switch r.Rule {
		case "main":
			main = append(main, text)
		case "summary":
			// Each block is clipped in a summary request: only the
			// note's presence is checked, besides the tags.
			if !strings.Contains(text, realNote) {
				t.Errorf("the summary request lacks the advisor's note as written")
			}
		case "sub":
			mustCarry(t, "subagent request", text, cases, "subagent prompt")
		}
	}
	if len(main) != 5 {
		t.Fatalf("%d requests of the main rule, want 5", len(main))
	}
	for i, channels := range [][]string{
		{"system", "prompt", "steer"},
		{"file", "hook text"},
		{"subagent answer"},
		{"follow-up"},
		{"summary"},
	} {
		mustCarry(t, "request "+string(rune('1'+i)), main[i], cases, channels...)
	}
	for i := 1; i <= 3; i++ {
		if !strings.Contains(main[i], realNote) {
			t.Errorf("request %d lacks the advisor's note as written", i+1)
		}
	}
	if !strings.Contains(main[1], agent.EscapedNotice) {
		t.Errorf("request 2 lacks the notice after escaped text")
	}

	// The session file keeps what was said: every channel's text, tags
	// and all.
	data, err := os.ReadFile(e.sess.File())
	if err != nil {
		t.Fatal(err)
	}
	var onDisk strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		onDisk.WriteString(requestStrings(t, []byte(line)))
	}
	for _, channel := range []string{"prompt", "steer", "follow-up", "hook text", "summary"} {
		if want := hostile(cases, channel); !strings.Contains(onDisk.String(), want) {
			t.Errorf("the session lost the %s text as it was said", channel)
		}
	}
}

// mustCarry fails unless text holds each channel's marker lines, and the
// escaped form of every case that survives any tool intact once for each
// channel.
func mustCarry(t *testing.T, what, text string, cases []agent.InjectionCase, channels ...string) {
	t.Helper()
	for _, ch := range channels {
		if n := strings.Count(text, "== "+ch+": "); n != len(cases) {
			t.Errorf("%s holds %d of the %d %s cases", what, n, len(cases), ch)
		}
	}
	for _, w := range shown(cases) {
		if n := strings.Count(text, w); n < len(channels) {
			t.Errorf("%s holds %q %d times, want at least %d (%v)", what, w, n, len(channels), channels)
		}
	}
}
