package sidecar

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
)

// FuzzHandle feeds arbitrary hook events to a sidecar with notes
// pending: it never panics, never hangs, and whatever it answers is the
// JSON an agent reads, with a reason only on a block.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s1","hook_event_name":"PostToolUse","tool_use_id":"c1","transcript_path":"/t/s1.jsonl"}`,
		`{"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`,
		`{"session_id":"s1","hook_event_name":"Stop","stop_hook_active":true}`,
		`{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"go"}`,
		`{"session_id":"s1","hook_event_name":"SessionStart","source":"compact"}`,
		`{"session_id":"s1","hook_event_name":"PostToolUseFailure","is_interrupt":true}`,
		`{"session_id":"s1","hook_event_name":"PostToolUse","agent_id":"a"}`,
		`{"session_id":"s1","hook_event_name":"SessionEnd","transcript_path":null}`,
		`{"session_id":"","hook_event_name":"Stop"}`,
		`[]`, `{`, `{"session_id":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data)
		if err != nil {
			return
		}
		host := NewHost()
		ctx := context.Background()
		host.Aside(ctx, advisor.Advice{Note: "an aside"})
		host.Steer(ctx, advisor.Advice{Note: "a steer", Severity: advisor.SeverityConcern})
		host.Card(ctx, advisor.Advice{Note: "a card"})
		sc, _, _ := newTest(t, Options{Host: host, FlushWait: time.Millisecond, StopWait: time.Millisecond})
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		out, _ := sc.Handle(ctx, in)
		if out == nil {
			return
		}
		b, err := json.Marshal(out)
		if err != nil || !json.Valid(b) {
			t.Fatalf("answer %+v does not encode: %v", out, err)
		}
		if (out.Decision == "block") != (out.Reason != "") || (out.Decision != "" && out.Decision != "block") {
			t.Fatalf("answer %+v: a reason goes with a block only", out)
		}
		if out.Specific != nil && (out.Specific.HookEventName != in.HookEventName || out.Specific.AdditionalContext == "") {
			t.Fatalf("answer %+v to %s", out.Specific, in.HookEventName)
		}
	})
}
