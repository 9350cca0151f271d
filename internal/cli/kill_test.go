package cli_test

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// TestSIGKILLNeverLosesReportedEntries kills vigil at random moments of an
// endless tool loop, 50 times, and checks that every entry an event reported
// as written is in the session file, that the file reads as one valid tree,
// and that --continue resumes it.
func TestSIGKILLNeverLosesReportedEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns vigil 50 times")
	}
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: resume
    match: ["CONTINUE-CHECK"]
    steps:
      - text: "resumed fine"
  - name: loop
    repeat: true
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo tick"}}]
`)
	rng := rand.New(rand.NewPCG(1, 2))
	var file string
	for i := range 50 {
		args := []string{}
		if i > 0 {
			args = append(args, "--continue")
		}
		p := startVigil(t, agentDir, work, args...)
		f := p.sessionFile()
		if file == "" {
			file = f
		} else if f != file {
			t.Fatalf("run %d: --continue opened %s, want %s", i, f, file)
		}
		p.send(map[string]any{"type": "prompt", "id": "go", "message": "loop forever"})
		reported := map[string]bool{}
		killAfter := 1 + rng.IntN(12)
		for n := 0; n < killAfter; n++ {
			ev := p.waitFor("an event that reports entries", func(m map[string]any) bool {
				_, one := m["entry"]
				_, many := m["entries"]
				return one || many
			})
			collectIDs(ev, reported)
		}
		p.cmd.Process.Kill()
		<-p.done
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for id := range reported {
			if !strings.Contains(string(data), `"id":"`+id+`"`) {
				t.Fatalf("run %d: entry %s was reported written but is not in %s", i, id, file)
			}
		}
	}
	// The file may end in a torn line; --continue repairs it and goes on.
	out, err := vigilCommand(agentDir, work, "-m", "fake/m", "--continue", "-p", "CONTINUE-CHECK").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "resumed fine") {
		t.Fatalf("--continue after the kills: %v\n%s", err, out)
	}
	checkTree(t, file)
}

// collectIDs adds the ids of the entries an event carries.
func collectIDs(ev map[string]any, ids map[string]bool) {
	add := func(v any) {
		if e, ok := v.(map[string]any); ok {
			if id, ok := e["id"].(string); ok && id != "" {
				ids[id] = true
			}
		}
	}
	add(ev["entry"])
	if list, ok := ev["entries"].([]any); ok {
		for _, e := range list {
			add(e)
		}
	}
}
