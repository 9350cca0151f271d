package hook

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/hookwire"
	"github.com/vigil-dev/vigil/internal/sidecar"
)

// TestTheTwoSidesAgree: internal/hookwire holds the hook's side of the
// contract with the sidecar without importing it (the hook binary must
// start fast); what both sides define must be the same. The types
// convert into each other (hook.go does), so their fields agree; this
// checks the values and the functions.
func TestTheTwoSidesAgree(t *testing.T) {
	for _, c := range [][2]any{
		{sidecar.EventSessionStart, hookwire.EventSessionStart},
		{sidecar.EventSessionEnd, hookwire.EventSessionEnd},
		{sidecar.EventUserPromptSubmit, hookwire.EventUserPromptSubmit},
		{sidecar.EventPostToolUse, hookwire.EventPostToolUse},
		{sidecar.EventPostToolUseFailure, hookwire.EventPostToolUseFailure},
		{sidecar.EventStop, hookwire.EventStop},
		{sidecar.EventPreCompact, hookwire.EventPreCompact},
		{sidecar.AgentClaudeCode, hookwire.AgentClaudeCode},
		{sidecar.AgentCodex, hookwire.AgentCodex},
		{sidecar.MaxEvent, hookwire.MaxEvent},
		{sidecar.DeadlineHeader, hookwire.DeadlineHeader},
		{sidecar.ProblemHeader, hookwire.ProblemHeader},
		{sidecar.SpawnReadyWait, hookwire.SpawnReadyWait},
	} {
		if fmt.Sprint(c[0]) != fmt.Sprint(c[1]) {
			t.Errorf("the sidecar says %v, the hook %v", c[0], c[1])
		}
	}

	run, err := os.MkdirTemp("", "vha")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(run)
	env := func(k string) (string, bool) { return run + "/r", k == "VIGIL_RUNTIME_DIR" }
	sd, err1 := sidecar.RuntimeDir(env)
	wd, err2 := hookwire.RuntimeDir(env)
	if err1 != nil || err2 != nil || string(sd) != string(wd) {
		t.Fatalf("runtime folders %q (%v) and %q (%v)", sd, err1, wd, err2)
	}
	for _, k := range []sidecar.Key{{Agent: "codex", Session: "s1"}, {Agent: "claude-code", Session: "é\x00/../x"}} {
		wk := hookwire.Key(k)
		if k.Name() != wk.Name() || sd.Socket(k) != wd.Socket(wk) || sd.Info(k) != wd.Info(wk) || sd.Log(k) != wd.Log(wk) || sd.HookLog() != wd.HookLog() {
			t.Errorf("key %+v: the sidecar's files and the hook's differ", k)
		}
	}

	events := []string{
		`{"session_id":"s1","hook_event_name":"Stop","transcript_path":null,"cwd":"/w","stop_hook_active":true,"last_assistant_message":"x"}`,
		`{"session_id":"s1","hook_event_name":"SessionStart","source":"resume","transcript_path":"/t","turn_id":"t","model":"m","agent_id":"a","tool_name":"Bash","tool_use_id":"c","is_interrupt":true,"reason":"r"}`,
		`{"session_id":"s1"}`, `{"hook_event_name":"Stop"}`, `{"session_id":`, "\"s\xff\"",
		`{"session_id":"s1\n","hook_event_name":"Stop"}`,
		`{"session_id":"s1","hook_event_name":"Stop","cwd":"` + strings.Repeat("d", 5000) + `"}`,
		`{"session_id":"s1","hook_event_name":"Stop","tool_input":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
	}
	for _, e := range events {
		si, serr := sidecar.ParseInput([]byte(e))
		wi, werr := hookwire.ParseInput([]byte(e))
		if fmt.Sprint(serr) != fmt.Sprint(werr) || !reflect.DeepEqual(si, sidecar.Input(wi)) {
			t.Errorf("%.60q: the sidecar reads %+v (%v), the hook %+v (%v)", e, si, serr, wi, werr)
		}
	}
	for _, s := range []string{"plain", "a\nb\x1b]0;t\x07 \xff", "\u2028"} {
		if sidecar.LogText(s) != hookwire.LogText(s) {
			t.Errorf("LogText(%q): %q and %q", s, sidecar.LogText(s), hookwire.LogText(s))
		}
	}
	if s, w := sidecar.AgentOf(os.Getppid()), hookwire.AgentOf(os.Getppid()); s != sidecar.Proc(w) {
		t.Errorf("AgentOf: the sidecar finds %+v, the hook %+v", s, w)
	}
	if !errors.Is(ErrNoSidecar, hookwire.ErrNoSidecar) {
		t.Error("ErrNoSidecar is not hookwire's")
	}
}
