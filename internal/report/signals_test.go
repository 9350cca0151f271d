package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/review"
	"github.com/vigil-dev/vigil/rules"
)

// twoRuns is a reviewed file of two runs, the second with signals, one
// of them past the review's limit.
func twoRuns() *File {
	return &File{Path: "two.jsonl", Result: &review.Result{File: "two.jsonl", Format: "openhands", Runs: []review.Run{
		{Steps: 3},
		{Steps: 4, Signals: []rules.Signal{
			{Kind: rules.SignalCheckOff, Step: 2, Detail: "`--no-verify` in `git commit --no-verify`"},
			{Kind: rules.SignalSuccessClaim, Step: 4, Detail: "\"Deployed.\" with nothing run\x1b[2J"},
		}, SignalCount: 3},
	}}}
}

// TestJSONSignals checks the JSON lists signals with their run index,
// counts them per run (kept or not), and has an empty array, not null,
// when there are none.
func TestJSONSignals(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, twoRuns()); err != nil {
		t.Fatal(err)
	}
	var got JSONFile
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []JSONSignal{
		{Run: 1, Step: 2, Kind: "check-off", Detail: "`--no-verify` in `git commit --no-verify`"},
		{Run: 1, Step: 4, Kind: "success-claim", Detail: "\"Deployed.\" with nothing run\x1b[2J"},
	}
	if len(got.Signals) != 2 || got.Signals[0] != want[0] || got.Signals[1] != want[1] {
		t.Errorf("signals %+v, want %+v", got.Signals, want)
	}
	if got.Runs[0].Signals != 0 || got.Runs[1].Signals != 3 {
		t.Errorf("runs %+v, want 0 and 3 signals", got.Runs)
	}
	if bytes.Contains(b.Bytes(), []byte("\x1b")) {
		t.Errorf("raw escape in the JSON: %q", b.String())
	}
	b.Reset()
	if err := WriteJSON(&b, &File{Path: "x", Result: &review.Result{Runs: []review.Run{{Steps: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"signals":[]`) {
		t.Errorf("no empty signals array: %s", b.String())
	}
}

// TestTextSignals checks Style.Signals lists each run's signals, escaped,
// and says how many were not kept; without it they are left out.
func TestTextSignals(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, twoRuns(), Style{Signals: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"2 runs, 7 steps, 0 findings, 3 signals",
		"    no signals\n",
		"      step 2  check-off      `--no-verify` in `git commit --no-verify`\n",
		`      step 4  success-claim  "Deployed." with nothing run\x1b[2J`,
		"… and 1 more signal, not kept",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	WriteText(&b, twoRuns(), Style{})
	if strings.Contains(b.String(), "signal") {
		t.Errorf("signals without Style.Signals:\n%s", b.String())
	}
}
