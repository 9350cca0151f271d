package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTUIPasteStaysText is issue 28's paste in a real terminal: text
// that holds the end-of-paste sequence and CRs (printf
// 'x\033[201~\rINJECTED\r'), pasted with tmux's bracketed paste, lands in
// the editor whole and sends nothing; the user's Enter then sends it as
// one prompt. Without the guard the first CR sent "x" and the second
// "INJECTED", each on its own.
func TestTUIPasteStaysText(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    repeat: true
    steps:
      - text: "ANSWER-paste"
`)
	env := []string{"VIGIL_AGENT_DIR=" + agentDir, "HOME=" + filepath.Dir(agentDir), "PATH=/usr/bin:/bin"}
	p := startTUI(t, env, work, "-m", "fake/m")
	p.waitFor(20*time.Second, "Ask vigil")
	p.tmux("set-buffer", "--", "x\x1b[201~\rINJECTED\r")
	p.tmux("paste-buffer", "-p", "-t", "0")
	p.waitFor(10*time.Second, "INJECTED")
	p.keys("Enter")
	p.waitFor(30*time.Second, "ANSWER-paste", "○ idle")

	var prompts []string
	for _, r := range srv.Requests() {
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		for _, m := range body.Messages {
			if m.Role == "user" {
				prompts = append(prompts, string(m.Content))
			}
		}
	}
	if len(prompts) == 0 || !strings.Contains(prompts[0], `x\nINJECTED`) {
		t.Errorf("the first prompt sent is %.200q, want the whole paste, x and INJECTED on two lines", prompts)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d model requests, want the one prompt's", len(srv.Requests()))
	}
}
