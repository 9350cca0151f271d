package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var sweSamples = []string{
	"swe-agent/BabyEncryption.traj",
	"swe-agent/rock.traj",
	"swe-agent/function_calling_simple.traj",
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
			// 0.x: text actions in a fenced block; the history lacks one
			// trajectory step; the last reply submits and gets no answer.
			file:  sweSamples[0],
			task:  `The CTF challenge is a cryptography problem named "BabyEncryption"`,
			stats: stepStats{steps: 15, calls: 15, answered: 14},
			exit:  `{"exit_status":"submitted"}`,
			notes: []string{"system prompt skipped", "trajectory step missing from the history skipped"},
		},
		{
			// 0.x with a command that timed out.
			file:  sweSamples[1],
			task:  `reverse engineering problem named "Rock"`,
			stats: stepStats{steps: 12, calls: 12, answered: 11, failed: 1},
			exit:  `{"exit_status":"submitted"}`,
			notes: []string{"system prompt skipped"},
		},
		{
			// 1.x with function calling: calls keep their ids and names,
			// results name the calls they answer; no info.
			file:  sweSamples[2],
			task:  "SyntaxError: invalid syntax",
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
	if c.ID != "call-1" || string(c.Arguments) != `{"command":"open chall.py"}` {
		t.Errorf("first call %+v %s", c, c.Arguments)
	}
	if s.Text() != "We are given a python file called `chall.py`. We will first examine its contents." {
		t.Errorf("text %q", s.Text())
	}
	// A reply with only an action has no text.
	if s := r.runs[0].steps[2]; s.Text() != "" || !strings.HasPrefix(string(s.Calls()[0].Arguments), `{"command":"edit 1:1\nwith open`) {
		t.Errorf("step 3: text %q, call %s", s.Text(), s.Calls()[0].Arguments)
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
	data, err := os.ReadFile(filepath.Join("testdata", sweSamples[1]))
	if err != nil {
		t.Fatal(err)
	}
	checkStopEarly(t, "rock.traj", data)
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
	checkIOError(t, "rock.traj", big)
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
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(data) })
}
