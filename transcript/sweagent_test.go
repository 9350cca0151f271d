package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var sweSamples = []string{
	"swe-agent/calc-text.traj",
	"swe-agent/calc-fc.traj",
}

func TestSWEAgentSamples(t *testing.T) {
	cases := []struct {
		file  string
		task  string
		stats stepStats
		exit  string
		names []string // the calls' names, when not all "bash"
		notes []string
	}{
		{
			// 0.x: text actions in a fenced block, after a demonstration;
			// the edit the linter rejected is only in the trajectory and
			// is put back, answered with the rejection; a command times
			// out; the last reply submits and gets no answer.
			file:  sweSamples[0],
			task:  "calc.add returns the wrong result",
			stats: stepStats{steps: 7, calls: 7, answered: 6, failed: 2},
			exit:  `{"exit_status":"submitted"}`,
			notes: []string{"system prompt skipped", "demonstration skipped", "re-queried reply read from the trajectory"},
		},
		{
			// 1.x with function calling: calls keep their ids and names,
			// results name the calls they answer; only a history.
			file:  sweSamples[1],
			task:  "calc.add returns the wrong result",
			stats: stepStats{steps: 5, calls: 5, answered: 5},
			names: []string{"find_file", "open", "edit", "bash", "submit"},
			notes: []string{"system prompt skipped"},
		},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			r := readTestdata(t, c.file)
			if r.format != FormatSWEAgent || len(r.runs) != 1 {
				t.Fatalf("format %q, %d runs", r.format, len(r.runs))
			}
			run := r.runs[0]
			checkRun(t, run)
			if !strings.Contains(firstText(run), c.task) {
				t.Errorf("first entry is not the task: %.100q", firstText(run))
			}
			if got := statsOf(run); got != c.stats {
				t.Errorf("stats %+v, want %+v", got, c.stats)
			}
			if got := exitDetails(run); got != c.exit {
				t.Errorf("exit %q, want %q", got, c.exit)
			}
			for i, s := range run.steps {
				name := "bash"
				if c.names != nil {
					name = c.names[i]
				}
				if calls := s.Calls(); len(calls) != 1 || calls[0].Name != name {
					t.Errorf("step %d: calls %+v, want one %s", s.N, calls, name)
				}
			}
			for _, n := range c.notes {
				if !r.noted(n) {
					t.Errorf("no note %q in %v", n, r.notes)
				}
			}
		})
	}
}

func TestSWEAgentTextActions(t *testing.T) {
	r := readTestdata(t, sweSamples[0])
	s := r.runs[0].steps[0]
	c := s.Calls()[0]
	if c.ID != "call-1" || string(c.Arguments) != `{"command":"python -m pytest -q test_calc.py"}` {
		t.Errorf("first call %+v %s", c, c.Arguments)
	}
	if s.Text() != "Let's first reproduce the failure by running the tests." {
		t.Errorf("text %q", s.Text())
	}
	// A reply with only an action has no text.
	if s := r.runs[0].steps[1]; s.Text() != "" || string(s.Calls()[0].Arguments) != `{"command":"open calc.py"}` {
		t.Errorf("step 2: text %q, call %s", s.Text(), s.Calls()[0].Arguments)
	}
	// The edit the linter rejected is put back from the trajectory before
	// the reply that follows it, answered with the rejection and the
	// state line the history's observations end with.
	s = r.runs[0].steps[2]
	c = s.Calls()[0]
	res, _ := s.Result(c.ID)
	if s.Reply.ID != "t3" || s.Text() != "Line 2 should add the numbers." || string(c.Arguments) != `{"command":"edit 2:2\n        return a + b\nend_of_edit"}` ||
		!res.IsError || !strings.HasPrefix(resultText(res), "Your proposed edit has introduced new syntax error(s).") ||
		!strings.HasSuffix(resultText(res), "(Open file: /testbed/calc.py)\n(Current directory: /testbed)\nbash-$") {
		t.Errorf("step 3: %s %q, call %s, result %v %q", s.Reply.ID, s.Text(), c.Arguments, res.IsError, resultText(res))
	}
	if s := r.runs[0].steps[3]; s.Reply.ID != "8" || s.Calls()[0].ID != "call-4" {
		t.Errorf("step 4: %s, call %s", s.Reply.ID, s.Calls()[0].ID)
	}
}

// TestSWEAgentTrajectoryOrder checks the steps only the trajectory holds:
// a reply without an action, trailing steps after the history's last
// reply, and a trajectory after the history (then only counted).
func TestSWEAgentTrajectoryOrder(t *testing.T) {
	traj := `"trajectory": [
	  {"action": "ls\n", "observation": "a.py", "thought": "look", "state": {"open_file": "n/a", "working_dir": "/r"}},
	  {"action": "", "observation": "", "thought": "no action here", "query": [{"role": "system", "content": "long"}]},
	  {"action": "cat a.py\n", "observation": "x = 1", "thought": "read"},
	  {"action": "submit\n", "observation": "Your output was not formatted correctly", "thought": "done"}
	]`
	history := `"history": [
	  {"role": "user", "content": "task", "agent": "main"},
	  {"role": "assistant", "content": "look", "thought": "look", "action": "ls\n", "agent": "main"},
	  {"role": "user", "content": "a.py", "agent": "main"},
	  {"role": "assistant", "content": "read", "thought": "read", "action": "cat a.py\n", "agent": "main"},
	  {"role": "user", "content": "x = 1", "agent": "main"}
	]`
	r, err := readTranscript(bytes.NewReader([]byte("{"+traj+",\n"+history+"}")), "x.traj")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	var got []string
	for _, s := range run.steps {
		got = append(got, fmt.Sprintf("%s:%s:%d", s.Reply.ID, s.Text(), len(s.Calls())))
	}
	if want := "2:look:1 t2:no action here:0 4:read:1 t4:done:1"; strings.Join(got, " ") != want {
		t.Errorf("steps %q, want %q", strings.Join(got, " "), want)
	}
	if !r.noted("re-queried reply without an action read from the trajectory") || !r.noted("re-queried reply read from the trajectory") {
		t.Errorf("notes %v", r.notes)
	}
	// A trajectory after the history is not kept: its extra step is noted.
	r, err = readTranscript(bytes.NewReader([]byte("{"+history+",\n"+traj+"}")), "x.traj")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if got := statsOf(r.runs[0]); got.steps != 2 || !r.noted("trajectory step missing from the history skipped") {
		t.Errorf("trajectory after the history: %+v, notes %v", got, r.notes)
	}
}

func TestSWEAgentShapes(t *testing.T) {
	data := []byte(`{
  "attempts": [
    {"trajectory": [{"action": "ls"}], "history": [
      {"role": "system", "content": "sys", "agent": "main"},
      {"role": "user", "content": "demo task", "agent": "main", "is_demo": true},
      {"role": "user", "content": [{"type": "text", "text": "Fix it."}], "agent": "main", "message_type": "observation"},
      {"role": "assistant", "content": "Look.\n` + "```" + `\nls\n` + "```" + `", "agent": "main", "thinking_blocks": [{"type": "thinking", "thinking": "hmm", "signature": "sig"}]},
      {"role": "user", "content": "The command 'ls' was cancelled because it took more than 30 seconds.", "agent": "main"}
    ], "info": {"exit_status": "exit_cost"}, "replay_config": "{\"agent\": {\"model\": {\"name\": \"gpt-4o\"}}, \"problem_statement\": {\"id\": \"a__b-1\"}}"},
    {"history": [
      {"role": "user", "content": "Fix it.", "agent": "main"},
      {"role": "assistant", "content": "", "thought": "t", "action": "submit", "agent": "main", "tool_calls": [{"id": "x1", "function": {"name": "submit", "arguments": {}}}]},
      {"role": "tool", "content": "done", "tool_call_ids": ["x1"], "agent": "main"},
      {"role": "critic", "content": "?"}
    ], "info": {"exit_status": "submitted"}, "mystery": 1}
  ],
  "trajectory": [{"action": "again"}],
  "history": [{"role": "user", "content": "the best attempt again"}],
  "info": {"exit_status": "submitted", "best_attempt_idx": 1}
}`)
	r, err := readTranscript(bytes.NewReader(data), "a__b-1.traj")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if r.format != FormatSWEAgent || len(r.runs) != 2 {
		t.Fatalf("format %q, %d runs", r.format, len(r.runs))
	}
	a, b := r.runs[0], r.runs[1]
	checkRun(t, a)
	checkRun(t, b)
	if a.info.Index != 0 || b.info.Index != 1 || a.entries[0].ID != "0.3" || b.entries[0].ID != "1.1" {
		t.Errorf("runs %+v %+v, first ids %s %s", a.info, b.info, a.entries[0].ID, b.entries[0].ID)
	}
	if firstText(a) != "Fix it." {
		t.Errorf("task %q", firstText(a))
	}
	if got := statsOf(a); got != (stepStats{steps: 1, calls: 1, answered: 1, failed: 1}) {
		t.Errorf("attempt 0: %+v", got)
	}
	m := a.steps[0].Message()
	if m.Message.Content[0].Type != "thinking" || m.Message.Content[0].Signature != "sig" || a.steps[0].Text() != "Look." {
		t.Errorf("reply %+v", m.Message.Content)
	}
	if got := exitDetails(a); got != `{"exit_status":"exit_cost","instance_id":"a__b-1","model":"gpt-4o"}` {
		t.Errorf("exit %s", got)
	}
	if got := statsOf(b); got != (stepStats{steps: 1, calls: 1, answered: 1}) {
		t.Errorf("attempt 1: %+v", got)
	}
	if c := b.steps[0].Calls()[0]; c.ID != "x1" || string(c.Arguments) != "{}" || b.steps[0].Text() != "t" {
		t.Errorf("call %+v, text %q", c, b.steps[0].Text())
	}
	for _, n := range []string{"demonstration skipped", `unknown role "critic"`, `unknown key "mystery"`} {
		if !r.noted(n) {
			t.Errorf("no note %q in %v", n, r.notes)
		}
	}
}

func TestSWEAgentTruncated(t *testing.T) {
	for _, name := range sweSamples {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		checkCuts(t, filepath.Base(name), data, 40)
	}
}

func TestSWEAgentReadError(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", sweSamples[0]))
	if err != nil {
		t.Fatal(err)
	}
	checkStopEarly(t, "calc-text.traj", data)
	// The samples fit in the detection window; a long trajectory puts the
	// history, and the failure, past it.
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	steps := doc["trajectory"].([]any)
	for len(steps) < 400 {
		steps = append(steps, steps...)
	}
	big, err := json.Marshal(map[string]any{"trajectory": steps, "history": doc["history"]})
	if err != nil {
		t.Fatal(err)
	}
	checkIOError(t, "calc-text.traj", big)
}

func TestSniffSWEAgent(t *testing.T) {
	cases := []struct {
		name, file, head string
		want             bool
	}{
		{"1.x", "x.traj", `{"trajectory": [{"action": "ls", "observation": ""}], "history": []}`, true},
		{"0.x", "x.json", `{"environment": "swe_main", "trajectory": [{"action": "ls\n", "observation": "`, true},
		{"history only", "x.json", `{"history": [{"role": "system", "content": "SETTING", "agent": "main"}]}`, true},
		{"retry", "x.json", `{"attempts": [{"trajectory": [`, true},
		{"empty by name", "x.traj", `{"environment": "swe_main", "trajectory": []`, true},
		{"openhands output", "output.jsonl", `{"instance_id": "a", "history": [{"id": 0, "source": "user", "role": "user", "message_type": "x"}]}`, false},
		{"mini-swe-agent", "x.traj.json", `{"info": {"mini_version": "2"}, "messages": []}`, false},
		{"chat list", "x.json", `[{"role": "user", "content": "hi"}]`, false},
		{"other object", "x.json", `{"history": [1, 2]}`, false},
	}
	for _, c := range cases {
		if got := sniffSWEAgent([]byte(c.head), c.file); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	for _, name := range append(sweSamples, miniDict, miniList) {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		head := data[:min(len(data), sniffSize)]
		if got, want := sniffSWEAgent(head, name), strings.HasPrefix(name, "swe-agent/"); got != want {
			t.Errorf("%s: sniffed %v", name, got)
		}
		if sniffMiniSWEAgent(head, name) == strings.HasPrefix(name, "swe-agent/") {
			t.Errorf("%s: mini-swe-agent's sniffer is wrong about it", name)
		}
	}
}

func FuzzSWEAgent(f *testing.F) {
	for _, name := range sweSamples {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 16<<10)])
	}
	f.Add([]byte(`{"attempts": [{"history": [{"role": "assistant", "tool_calls": [{"function": {"arguments": 5}}]}, {"role": "tool", "tool_call_ids": ["q"]}]}, 3], "trajectory": {}}`))
	f.Add([]byte(`{"trajectory": [{"action": "ls", "observation": "x", "state": "{\"open_file\": \"a\", \"working_dir\": \"/\"}"}, {"action": ""}, 7, {"action": "ls", "state": {"open_file": 1}}], "history": [{"role": "assistant", "action": "ls", "agent": "main"}, {"role": "assistant", "agent": "main"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(data) })
}
