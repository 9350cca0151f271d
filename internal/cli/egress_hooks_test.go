package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hookSeeds are the secrets a hook payload carries, assembled at run
// time so that no scanner mistakes this file for a leak.
var hookSeeds = map[string]string{
	"db-password": "Pg" + "EgressHookPassw0rd77",
	"aws-secret":  "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEGRESSHOOKKEY",
	"pem":         "MIIEvAIBADANBgkqhkiG9w0" + "BAQEFAASCBKYwggSiHookEgress",
	"jwt":         "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiJob29rLWVncmVzcyJ9.c2lnbmF0dXJlLWhvb2s",
	"anthropic":   "sk-ant-" + "api03-HookEgressKeyThatMustNotLeave0123456789",
}

// hookSecretOutput is what the agent's tool printed: each seed in the
// shape it has in the wild.
func hookSecretOutput() string {
	return "DATABASE_URL=postgres://app:" + hookSeeds["db-password"] + "@db.internal:5432/prod\n" +
		"aws_secret_access_key = " + hookSeeds["aws-secret"] + "\n" +
		"-----BEGIN " + "PRIVATE KEY-----\n" + hookSeeds["pem"] + "\n-----END " + "PRIVATE KEY-----\n" +
		"Authorization: Bearer " + hookSeeds["jwt"] + "\n" +
		"ANTHROPIC_API_KEY=" + hookSeeds["anthropic"] + "\n"
}

// ccTranscriptLine is one line of a Claude Code transcript.
func ccTranscriptLine(uuid, typ string, message any) string {
	b, _ := json.Marshal(map[string]any{"type": typ, "uuid": uuid, "sessionId": "egress-1", "cwd": "/w", "timestamp": "2026-12-01T10:00:00.000Z", "message": message})
	return string(b) + "\n"
}

// TestHookPayloadSecretEgress extends the secret-egress suite to hook
// inputs (issue 28): a Claude Code session whose tool printed secrets
// (a database URL with its password, an AWS secret key, a PEM key, a
// JWT, an Anthropic key), in its transcript and in the PostToolUse
// payload's tool_response, is reviewed by the advisor on fakellm; no
// request the advisor makes holds any of them.
func TestHookPayloadSecretEgress(t *testing.T) {
	s := newAttached(t, "rules:\n  - name: quiet\n    model: adv\n    repeat: true\n    steps: [{text: \"nothing to add\"}]\n")
	out := hookSecretOutput()
	transcript := filepath.Join(s.root, "egress-1.jsonl")
	lines := ccTranscriptLine("u1", "user", map[string]any{"role": "user", "content": "Check the deployment settings."}) +
		ccTranscriptLine("a1", "assistant", map[string]any{"id": "m1", "role": "assistant", "model": "claude-x", "stop_reason": "tool_use",
			"content": []any{map[string]any{"type": "tool_use", "id": "c1", "name": "Bash", "input": map[string]any{"command": "cat .env"}}}}) +
		ccTranscriptLine("r1", "user", map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "c1", "content": out}}}) +
		ccTranscriptLine("a2", "assistant", map[string]any{"id": "m2", "role": "assistant", "model": "claude-x", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "The settings are in .env."}}})
	write(t, transcript, lines)

	hook := func(name string, extra map[string]any) {
		t.Helper()
		ev := map[string]any{"session_id": "egress-1", "hook_event_name": name, "cwd": s.work, "transcript_path": transcript}
		for k, v := range extra {
			ev[k] = v
		}
		b, _ := json.Marshal(ev)
		cmd := exec.Command(s.vigil, "hook", "claude-code")
		cmd.Dir, cmd.Env, cmd.Stdin = s.work, s.env, bytes.NewReader(b)
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hook %s: %v\n%s", name, err, o)
		}
	}
	hook("SessionStart", map[string]any{"source": "startup"})
	hook("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "c1",
		"tool_input": map[string]any{"command": "cat .env"}, "tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
	// Stop waits for the reviews of the run's steps.
	hook("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": "The settings are in .env."})

	n := 0
	for _, r := range s.srv.Requests() {
		if r.Model != "adv" {
			continue
		}
		n++
		for name, secret := range hookSeeds {
			if strings.Contains(string(r.Body), secret) {
				t.Errorf("advisor request %d holds the %s seed", n, name)
			}
		}
	}
	if n == 0 {
		t.Fatalf("the advisor made no request: the test proves nothing\nlogs:\n%s", s.sidecarLogs())
	}
	if b, _ := os.ReadFile(filepath.Join(s.runDir, "hook.log")); len(b) > 0 {
		t.Logf("hook.log:\n%s", b)
	}
}
