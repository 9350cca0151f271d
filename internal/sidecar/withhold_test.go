package sidecar

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// withholdScript is an advisor that raises a concern about the first step
// and a blocker about the last.
const withholdScript = `
rules:
  - steps:
      - tool_calls: [{name: advise, arguments: {note: "WITHHELD-concern: make fails the same way; read the error.", severity: concern}}]
      - tool_calls: [{name: advise, arguments: {note: "WITHHELD-blocker: the build still fails.", severity: blocker}}]
  - repeat: true
    steps:
      - text: "Nothing new."
`

// Issue 17 item 2, for attached agents: a real advisor runtime over the
// sidecar's Host. With allowPromptInjection true its concern is the tool
// hook's additionalContext and its blocker blocks the Stop; with it false
// the advisor reviews the same steps, the Host keeps both notes for the
// user, and no hook reply says anything: no additionalContext, no Stop
// block, nothing with the next prompt.
func TestWithholdKeepsNotesOutOfHookReplies(t *testing.T) {
	for _, allow := range []bool{true, false} {
		t.Run(map[bool]string{true: "allowed", false: "withheld"}[allow], func(t *testing.T) {
			ctx := context.Background()
			srv := fakellm.StartTest(t, fakellm.MustParse(t, withholdScript))
			m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "adv"})
			if err != nil {
				t.Fatal(err)
			}
			host := NewHost()
			rt, err := advisor.New(advisor.Options{Model: m, Host: host, Withhold: !allow, ImmuneTurns: -1})
			if err != nil {
				t.Fatal(err)
			}
			rt.Start(ctx)
			t.Cleanup(rt.Stop)
			f := &fakeFollower{}
			sc := New(Options{
				Key: Key{Agent: AgentClaudeCode, Session: "s1"}, Host: host, Advisor: rt,
				Transcript: "/t/s1.jsonl", Follow: func(string) Follower { return f },
				SyncBacklog: 1, SyncTimeout: 10 * time.Second,
			})

			var replies []string
			collect := func(out *Output, err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
				if out != nil {
					s := out.Reason
					if out.Specific != nil {
						s += out.Specific.AdditionalContext
					}
					replies = append(replies, s)
				}
			}
			f.polls = append(f.polls, stepBatch(1, "fix the build"))
			collect(sc.Handle(ctx, event(EventPostToolUseFailure, nil)))
			// The review of step 1 is done by the next boundary's wait.
			f.polls = append(f.polls, stepBatch(2, ""))
			collect(sc.Handle(ctx, event(EventPostToolUseFailure, nil)))
			final := reply("r9", "All fixed.")
			f.settles = append(f.settles, transcript.Batch{Entries: []session.Entry{final}, Steps: []transcript.Step{{N: 3, Reply: final}}})
			collect(sc.Handle(ctx, event(EventStop, map[string]any{"stop_hook_active": false, "last_assistant_message": "All fixed."})))
			collect(sc.Handle(ctx, event(EventUserPromptSubmit, map[string]any{"prompt": "next"})))

			all := strings.Join(replies, "\n")
			n, latest := host.Withheld()
			st := rt.Status()
			if allow {
				if !strings.Contains(all, "WITHHELD-concern") || !strings.Contains(all, "WITHHELD-blocker") || n != 0 {
					t.Errorf("replies %q, %d withheld; want both notes delivered", replies, n)
				}
				return
			}
			if len(replies) != 0 {
				t.Errorf("hook replies %q, want none", replies)
			}
			if n != 2 || len(latest) != 2 || !strings.Contains(latest[0].Note, "WITHHELD-concern") || latest[1].Severity != advisor.SeverityBlocker {
				t.Errorf("withheld %d: %+v; want the concern and the blocker", n, latest)
			}
			if st.Withheld != 2 || st.Delivered != 0 || st.Reviews < 3 {
				t.Errorf("runtime status %+v, want 3 reviews and 2 notes withheld", st)
			}
			if s, a, c := host.Pending(); s+a+c != 0 {
				t.Errorf("notes pending for the agent: %d steers, %d asides, %d cards", s, a, c)
			}
			if st := sc.Stats(); st.Delivered != 0 || st.Blocks != 0 {
				t.Errorf("sidecar stats %+v, want nothing delivered", st)
			}
		})
	}
}
