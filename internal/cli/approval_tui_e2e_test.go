package cli_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/agent"
)

// TestTUIApprovalOnceAlwaysDeny runs vigil --approval ask in tmux against
// fakellm: the first screen says the mode; each bash and write call shows
// its prompt and waits; y runs the first call once, a allows bash for the
// session (the third bash call runs unasked), n denies the write, whose
// refusal reaches the model's next request.
func TestTUIApprovalOnceAlwaysDeny(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, approvalScript)
	env := []string{"VIGIL_AGENT_DIR=" + agentDir, "HOME=" + filepath.Dir(agentDir)}
	p := startTUI(t, env, work, "-m", "fake/m", "--approval", "ask")

	p.waitFor(20*time.Second, "Ask vigil", "vigil asks before bash, write and edit run", "approval ask")
	p.text("go")
	p.keys("Enter")
	p.waitFor(30*time.Second, "Allow bash?", "$ echo ONE > one.txt; echo ONE-ran", "y allow once")
	p.keys("y")
	p.waitFor(30*time.Second, "Allow bash?", "$ echo TWO-ran", "a allow bash for this session")
	p.keys("a")
	p.waitFor(30*time.Second, "Allow write of denied.txt?", "+never")
	p.keys("n")
	p.waitFor(30*time.Second, "ANSWER-after-denial", "denied by you", "○ idle")

	p.keys("C-d")
	p.waitFor(10*time.Second, "VIGIL-EXITED 0")
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if !strings.Contains(string(reqs[3].Body), "THREE-ran") {
		t.Error("the third bash call did not run unasked under always")
	}
	if last := string(reqs[4].Body); !strings.Contains(last, agent.DeniedText) {
		t.Errorf("the last request lacks the refusal:\n%s", last)
	}
	if data, err := os.ReadFile(filepath.Join(work, "one.txt")); err != nil || strings.TrimSpace(string(data)) != "ONE" {
		t.Errorf("the call allowed once did not run: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(work, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied write happened (%v)", err)
	}
}
