package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThinkingFlagAndShortResume: --thinking sets the level of the
// model's reference (the request asks for thinking), a bad level is
// named, and -r ID resumes the session as --resume does.
func TestThinkingFlagAndShortResume(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    repeat: true
    steps:
      - text: "ANSWER"
`)
	editModels(t, agentDir, "{id: m,", "{id: m, reasoning: true,")
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "first")
	if body := string(srv.Requests()[0].Body); strings.Contains(body, `"thinking":{"budget_tokens"`) {
		t.Fatalf("no --thinking, yet the request asks for thinking: %s", body)
	}
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "--thinking", "high", "second")
	reqs := srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, `"thinking":{`) || !strings.Contains(body, "budget_tokens") {
		t.Errorf("--thinking high: the request asks for no thinking: %s", body)
	}

	cmd := vigilCommand(agentDir, work, "-p", "-m", "fake/m", "--thinking", "lots", "x")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `--thinking: unknown thinking level "lots"`) {
		t.Errorf("--thinking lots: %v: %s", err, out)
	}

	sessions, err := filepath.Glob(filepath.Join(agentDir, "sessions", "*", "*.jsonl"))
	if err != nil || len(sessions) != 2 {
		t.Fatalf("sessions: %v, %v; want 2", sessions, err)
	}
	before, _ := os.ReadFile(sessions[0])
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "-r", sessions[0], "third")
	after, _ := os.ReadFile(sessions[0])
	if !strings.Contains(string(after[len(before):]), "third") {
		t.Errorf("-r FILE did not go on in %s", sessions[0])
	}
}
