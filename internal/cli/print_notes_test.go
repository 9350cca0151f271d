package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notesScript scripts a primary (model m) that runs bash `false` three
// times and answers, and an advisor (model adv) whose first review raises
// a concern and whose second a blocker (a review ends with its advise
// call), and whose third has nothing more to add.
const notesScript = `
rules:
  - name: primary
    model: m
    repeat: true
    steps:
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - text: "FINAL-answer: false keeps failing."
  - name: advisor
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "CONCERN-note: false fails every time; read why before running it again.", severity: concern}}]
      - tool_calls: [{name: advise, arguments: {note: "BLOCKER-note: stop running false, it cannot succeed.", severity: blocker}}]
      - text: "Nothing more to add."
`

// notesSetup is an agent folder and project for notesScript, with the
// advisor on and waiting for each step's review (advisor.syncBacklog), so
// that both notes are delivered within the run with no timing assumption,
// and no interrupt cooldown to turn the blocker into an aside.
func notesSetup(t *testing.T) (agentDir, work string) {
	t.Helper()
	_, agentDir, work = fakeSetup(t, notesScript)
	addAdvisorModel(t, agentDir)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 60\n  immuneTurns: 0\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return agentDir, work
}

// TestPrintModeShowsAdvisorNotes: with -p, the concern and the blocker the
// advisor delivered are each one line on stderr, and stdout holds only the
// final answer.
func TestPrintModeShowsAdvisorNotes(t *testing.T) {
	agentDir, work := notesSetup(t)
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "--advisor-model", "fake/adv", "-p", "run false until it works")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("vigil: %v\n%s", err, stderr.String())
	}
	if got := string(out); got != "FINAL-answer: false keeps failing.\n" {
		t.Errorf("stdout = %q, want the final answer alone", got)
	}
	for _, want := range []string{
		"vigil: concern from the advisor: CONCERN-note: false fails every time; read why before running it again.\n",
		"vigil: blocker from the advisor: BLOCKER-note: stop running false, it cannot succeed.\n",
	} {
		if strings.Count(stderr.String(), want) != 1 {
			t.Errorf("stderr has not once %q:\n%s", want, stderr.String())
		}
	}
}

// TestJSONModeAdvisorNotesAreEvents: in --mode json the same notes are
// the events they already are (steer_delivered, carrying the advisor's
// entry), and stderr stays free of them.
func TestJSONModeAdvisorNotesAreEvents(t *testing.T) {
	agentDir, work := notesSetup(t)
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "--advisor-model", "fake/adv", "--mode", "json", "run false until it works")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("vigil: %v\n%s", err, stderr.String())
	}
	var notes []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		if entry := fmt.Sprint(m["entry"]); strings.Contains(entry, "advisory") && (strings.Contains(entry, "CONCERN-note") || strings.Contains(entry, "BLOCKER-note")) {
			notes = append(notes, fmt.Sprint(m["type"]))
		}
	}
	if strings.Join(notes, " ") != "steer_delivered steer_delivered" {
		t.Errorf("note events %q, want two steer_delivered:\n%s", notes, out)
	}
	if strings.Contains(stderr.String(), "from the advisor") {
		t.Errorf("json mode printed notes on stderr:\n%s", stderr.String())
	}
}
