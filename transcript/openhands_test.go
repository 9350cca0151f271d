package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// ohSamples are the OpenHands fixtures testdata/docs.py writes: a V0
// event list with tools (the workspace not as the task says), a V0 chat,
// V1 events one per line, and early resolver output.
var ohSamples = []string{
	"openhands/calc-state.json",
	"openhands/calc-chat.json",
	"openhands/calc-v1.jsonl",
	"openhands/calc-resolver.jsonl",
}

func TestOpenHandsSamples(t *testing.T) {
	cases := []struct {
		file  string
		task  string
		stats stepStats
		names []string
		id    string
		exit  string
	}{
		{
			// V0 event list: a run that fails (exit code 4: the tests are
			// not where the task says), a listing, an edit, a run that
			// passes, finish. The workspace recall is skipped.
			file:  ohSamples[0],
			task:  "Please fix add() in calc.py so that the tests in test_calc.py pass.",
			stats: stepStats{steps: 5, calls: 5, answered: 4, failed: 1},
			names: []string{"execute_bash", "str_replace_editor", "str_replace_editor", "execute_bash", "finish"},
		},
		{
			// V0 chat: two replies without calls, then finish.
			file:  ohSamples[1],
			task:  "what does add(2, 3) return in calc.py?",
			stats: stepStats{steps: 3, calls: 1},
			names: []string{"finish"},
		},
		{
			// V1 events, one per line: terminal, finish, a closing reply.
			file:  ohSamples[2],
			task:  "add() in /workspace/calc.py subtracts. Use the terminal tool",
			stats: stepStats{steps: 3, calls: 2, answered: 2},
			names: []string{"terminal", "finish"},
		},
		{
			// Early resolver output: events with no ids, args at the top.
			file:  ohSamples[3],
			task:  "Please fix the following issue for the repository in /workspace.",
			stats: stepStats{steps: 4, calls: 4, answered: 3},
			names: []string{"run", "run_ipython", "run", "finish"},
			id:    "example/calc#7",
			exit:  `{"success":true}`,
		},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			r := readTestdata(t, c.file)
			if r.format != FormatOpenHands || len(r.runs) != 1 {
				t.Fatalf("format %q, %d runs", r.format, len(r.runs))
			}
			run := r.runs[0]
			checkRun(t, run)
			if !strings.HasPrefix(firstText(run), c.task) {
				t.Errorf("first entry is not the task: %.80q", firstText(run))
			}
			if got := statsOf(run); got != c.stats {
				t.Errorf("stats %+v, want %+v", got, c.stats)
			}
			var names []string
			for _, s := range run.steps {
				for _, call := range s.Calls() {
					names = append(names, call.Name)
				}
			}
			if fmt.Sprint(names) != fmt.Sprint(c.names) {
				t.Errorf("calls %v, want %v", names, c.names)
			}
			if run.info.ID != c.id || exitDetails(run) != c.exit {
				t.Errorf("run id %q exit %q, want %q %q", run.info.ID, exitDetails(run), c.id, c.exit)
			}
		})
	}
}

func TestOpenHandsV0Details(t *testing.T) {
	r := readTestdata(t, ohSamples[0])
	run := r.runs[0]
	if want := "2026-12-01T10:00:01.3Z"; run.info.Started.Format("2006-01-02T15:04:05.999Z07:00") != want {
		t.Errorf("started %v", run.info.Started)
	}
	s := run.steps[0]
	// The arguments are the model's, not OpenHands' translation of them.
	if c := s.Calls()[0]; string(c.Arguments) != `{"command": "cd /workspace && python -m pytest -q test_calc.py", "is_input": "false"}` {
		t.Errorf("arguments %s", c.Arguments)
	}
	if res, _ := s.Result(s.Calls()[0].ID); !res.IsError {
		t.Errorf("the run that exited with code 4 is not an error: %+v", res)
	}
	edit := run.steps[2].Calls()[0]
	if edit.ID != "toolu_01Calc03StateTOpenHands" || string(edit.Arguments) != `{"command": "str_replace", "path": "/workspace/src/calc.py", "old_str": "    return a - b", "new_str": "    return a + b"}` {
		t.Errorf("edit call %s %s", edit.ID, edit.Arguments)
	}
	// LiteLLM's usage for Anthropic: cache reads under the prompt tokens'
	// details, cache writes beside them; the rest is input.
	m := run.steps[1].Message()
	want := llm.Usage{Input: 6, CacheRead: 3474, CacheWrite: 210, Output: 96}
	if m.Model.Model != "claude-sonnet-4-20250514" || m.Usage != want || m.StopReason != llm.StopToolUse {
		t.Errorf("reply model %v usage %+v stop %q", m.Model, m.Usage, m.StopReason)
	}
	if s.Text() != "I'll start by running the tests to see the failure." {
		t.Errorf("text %q", s.Text())
	}
	for _, n := range []string{`OpenHands "recall" action skipped`, `OpenHands "recall" observation skipped`} {
		if !r.noted(n) {
			t.Errorf("no note %q in %v", n, r.notes)
		}
	}
}

// TestOpenHandsCommandText checks that a command's result reads as
// OpenHands shows it to the model: the output within its shell metadata's
// prefix and suffix, and the exit code after it, in V0 and V1.
func TestOpenHandsCommandText(t *testing.T) {
	v0 := readTestdata(t, ohSamples[0]).runs[0]
	res, _ := v0.steps[0].Result(v0.steps[0].Calls()[0].ID)
	if got, want := resultText(res), "ERROR: file or directory not found: test_calc.py\n\n\nno tests ran in 0.01s\n[The command completed with exit code 4.]\n[Command finished with exit code 4]"; got != want {
		t.Errorf("V0 pytest: %q, want %q", got, want)
	}
	res, _ = v0.steps[3].Result(v0.steps[3].Calls()[0].ID)
	if got, want := resultText(res), "..                                                                       [100%]\n2 passed in 0.01s\n[The command completed with exit code 0.]\n[Command finished with exit code 0]"; got != want {
		t.Errorf("V0 pytest again: %q, want %q", got, want)
	}
	v1 := readTestdata(t, ohSamples[2]).runs[0].steps[0]
	res, _ = v1.Result(v1.Calls()[0].ID)
	if got, want := resultText(res), "\n[The command completed with exit code 0.]\n[Command finished with exit code 0]"; got != want {
		t.Errorf("V1 sed: %q, want %q", got, want)
	}
	// An editor's result has no shell metadata and stays as it is.
	res, _ = v0.steps[1].Result("toolu_01Calc02StateSOpenHands")
	if got := resultText(res); !strings.HasPrefix(got, "Here's the files and directories") || strings.Contains(got, "exit code") {
		t.Errorf("V0 view: %q", got)
	}
}

// ohLine builds an evaluation output line.
func ohLine(t *testing.T, instance string, history ...any) string {
	t.Helper()
	line, err := json.Marshal(map[string]any{
		"instance_id": instance,
		"instruction": "Fix " + instance + ".",
		"metadata":    map[string]any{"llm": map[string]any{"model": "litellm_proxy/gpt-4o"}},
		"history":     history,
		"error":       nil,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
}

func v1Action(id, resp, call, cmd string) map[string]any {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return map[string]any{"kind": "ActionEvent", "id": id, "timestamp": "2025-10-30T03:50:30.915175", "source": "agent",
		"thought":   []any{map[string]any{"type": "text", "text": "run " + cmd}},
		"action":    map[string]any{"kind": "ExecuteBashAction", "command": cmd},
		"tool_name": "execute_bash", "tool_call_id": call,
		"tool_call":       map[string]any{"id": call, "name": "execute_bash", "arguments": string(args)},
		"llm_response_id": resp}
}

func v1Observation(id, call string, exit int) map[string]any {
	return map[string]any{"kind": "ObservationEvent", "id": id, "source": "environment", "tool_call_id": call,
		"observation": map[string]any{"kind": "ExecuteBashObservation", "output": "out " + id, "exit_code": nil,
			"metadata": map[string]any{"exit_code": exit}}}
}

func TestOpenHandsOutputRuns(t *testing.T) {
	lines := []string{
		ohLine(t, "a__b-1",
			v1Action("e1", "r1", "c1", "ls"), v1Action("e2", "r1", "c2", "pwd"),
			v1Observation("o1", "c1", 0), v1Observation("o2", "c2", 127),
			map[string]any{"kind": "ConversationStateUpdateEvent", "id": "s1", "source": "environment"},
			v1Action("e3", "r2", "c3", "python x.py"), v1Observation("o3", "c3", 1),
			map[string]any{"kind": "AgentErrorEvent", "id": "x1", "source": "agent", "tool_call_id": "c3", "error": "late"},
		),
		ohLine(t, "a__b-2",
			map[string]any{"kind": "MessageEvent", "id": "m1", "source": "user", "llm_message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Fix a__b-2, please."}}}},
			map[string]any{"kind": "MessageEvent", "id": "m2", "source": "agent", "llm_message": map[string]any{"role": "assistant", "content": "Done.", "reasoning_content": "easy"}},
		),
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	r, err := readTranscript(bytes.NewReader(data), "output.jsonl")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if r.format != FormatOpenHands || len(r.runs) != 2 {
		t.Fatalf("format %q, %d runs", r.format, len(r.runs))
	}
	a, b := r.runs[0], r.runs[1]
	checkRun(t, a)
	checkRun(t, b)
	if a.info.ID != "a__b-1" || a.info.Index != 0 || a.info.Model != "litellm_proxy/gpt-4o" || b.info.Index != 1 || b.info.ID != "a__b-2" {
		t.Errorf("run infos %+v %+v", a.info, b.info)
	}
	// The instruction opens the first run, whose history has no user
	// message; the second run's own first message is the task.
	if firstText(a) != "Fix a__b-1." || a.entries[0].ID != "0:task" || firstText(b) != "Fix a__b-2, please." {
		t.Errorf("tasks %q (%s), %q", firstText(a), a.entries[0].ID, firstText(b))
	}
	// Two actions of one response make one step; their results arrive
	// after both. A late error for an answered call is kept as a message.
	if got := statsOf(a); got != (stepStats{steps: 2, calls: 3, answered: 3, failed: 2}) {
		t.Errorf("run a: %+v", got)
	}
	if n := len(a.steps[0].Calls()); n != 2 || a.steps[0].Text() != "run ls\n\nrun pwd" {
		t.Errorf("first step: %d calls, text %q", n, a.steps[0].Text())
	}
	if exitDetails(a) != `{"instance_id":"a__b-1"}` {
		t.Errorf("exit %s", exitDetails(a))
	}
	if got := statsOf(b); got != (stepStats{steps: 1}) {
		t.Errorf("run b: %+v", got)
	}
	if m := b.steps[0].Message(); m.Message.Content[0].Type != llm.BlockThinking || m.Model.Model != "litellm_proxy/gpt-4o" {
		t.Errorf("reply %+v", m)
	}
	for _, n := range []string{"OpenHands ConversationStateUpdateEvent skipped", "observation answering no open call"} {
		if !r.noted(n) {
			t.Errorf("no note %q in %v", n, r.notes)
		}
	}
}

func TestOpenHandsV0Grouping(t *testing.T) {
	meta := func(call string) map[string]any {
		return map[string]any{"function_name": "execute_bash", "tool_call_id": call, "total_calls_in_response": 2,
			"model_response": map[string]any{"id": "resp-1", "model": "m"}}
	}
	events := []any{
		map[string]any{"id": 0, "source": "user", "action": "message", "args": map[string]any{"content": "go"}},
		map[string]any{"id": 1, "source": "agent", "action": "system", "args": map[string]any{"content": "sys"}},
		map[string]any{"id": 2, "source": "agent", "action": "run", "args": map[string]any{"command": "a", "thought": "two at once"}, "tool_call_metadata": meta("t1")},
		map[string]any{"id": 3, "source": "agent", "observation": "run", "cause": 2, "content": "A", "extras": map[string]any{"metadata": map[string]any{"exit_code": 2}}, "tool_call_metadata": meta("t1")},
		map[string]any{"id": 4, "source": "agent", "action": "run", "args": map[string]any{"command": "b", "thought": ""}, "tool_call_metadata": meta("t2")},
		map[string]any{"id": 5, "source": "agent", "observation": "run", "cause": 4, "content": "B", "extras": map[string]any{"metadata": map[string]any{"exit_code": 0}}, "tool_call_metadata": meta("t2")},
		map[string]any{"id": 6, "source": "environment", "observation": "agent_state_changed", "content": ""},
		map[string]any{"id": 7, "source": "agent", "action": "browse", "args": map[string]any{"url": "http://x", "thought": "look"}},
		map[string]any{"id": 8, "source": "agent", "observation": "error", "cause": 7, "content": "no network"},
		map[string]any{"id": 9, "source": "user", "action": "run", "args": map[string]any{"command": "ls"}},
		map[string]any{"id": 10, "source": "agent", "note": "?"},
	}
	data, _ := json.Marshal(events)
	r, err := readTranscript(bytes.NewReader(data), "events.json")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	if got := statsOf(run); got != (stepStats{steps: 2, calls: 3, answered: 3, failed: 2}) {
		t.Errorf("stats %+v", got)
	}
	if s := run.steps[0]; len(s.Calls()) != 2 || s.Text() != "two at once" || len(s.Results) != 2 {
		t.Errorf("first step %d calls, %d results, text %q", len(s.Calls()), len(s.Results), s.Text())
	}
	if c := run.steps[1].Calls()[0]; c.ID != "call-7" || c.Name != "browse" || string(c.Arguments) != `{"url":"http://x"}` {
		t.Errorf("browse call %+v %s", c, c.Arguments)
	}
	for _, n := range []string{`OpenHands "system" action skipped`, `"agent_state_changed" observation skipped`, `"run" action from user skipped`, "event of no known kind"} {
		if !r.noted(n) {
			t.Errorf("no note %q in %v", n, r.notes)
		}
	}
}

func TestOpenHandsLayouts(t *testing.T) {
	events, err := os.ReadFile(filepath.Join("testdata", ohSamples[2]))
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(events), []byte("\n")) {
		if err := json.Indent(&pretty, line, "", "  "); err != nil {
			t.Fatal(err)
		}
		pretty.WriteString("\n")
	}
	single := bytes.SplitN(events, []byte("\n"), 2)[0]
	var singlePretty bytes.Buffer
	json.Indent(&singlePretty, single, "", "  ")
	cases := []struct {
		name    string
		data    []byte
		entries int
	}{
		{"event files concatenated, pretty", pretty.Bytes(), 7},
		{"one event per file, one line", single, 1},
		{"one event per file, pretty", singlePretty.Bytes(), 1},
		{"a list", []byte("[" + strings.Join(strings.Split(strings.TrimSpace(string(events)), "\n"), ",") + "]"), 7},
	}
	for _, c := range cases {
		r, err := readTranscript(bytes.NewReader(c.data), "event.json")
		if err != nil || r.err != nil {
			t.Fatalf("%s: %v %v", c.name, err, r.err)
		}
		if r.format != FormatOpenHands || len(r.runs) != 1 || len(r.runs[0].entries) != c.entries {
			t.Errorf("%s: format %q, runs %d, entries %d", c.name, r.format, len(r.runs), r.entryCount())
		}
	}
}

func TestOpenHandsTruncated(t *testing.T) {
	for _, name := range ohSamples {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		checkCuts(t, filepath.Base(name), data, 40)
	}
	// A malformed line in the middle is skipped; the runs around it stay.
	line, _ := os.ReadFile(filepath.Join("testdata", ohSamples[3]))
	data := string(line) + `{"instance_id": "broken", "history": [{"action": ` + "\n" + string(line)
	r, err := readTranscript(strings.NewReader(data), "output.jsonl")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if len(r.runs) != 2 || !r.noted("malformed line") || exitDetails(r.runs[0]) == "" || exitDetails(r.runs[1]) == "" {
		t.Errorf("%d runs, notes %v", len(r.runs), r.notes)
	}
}

func TestOpenHandsReadError(t *testing.T) {
	line, err := os.ReadFile(filepath.Join("testdata", ohSamples[3]))
	if err != nil {
		t.Fatal(err)
	}
	checkStopEarly(t, "output.jsonl", append(append([]byte{}, line...), line...))
	checkIOError(t, "output.jsonl", bytes.Repeat(line, sniffSize/len(line)+2))
	events, err := os.ReadFile(filepath.Join("testdata", ohSamples[0]))
	if err != nil {
		t.Fatal(err)
	}
	var list []json.RawMessage
	json.Unmarshal(events, &list)
	for len(list) < 80 {
		list = append(list, list...)
	}
	big, _ := json.Marshal(list)
	checkIOError(t, "trajectory.json", big)
}

func TestSniffOpenHands(t *testing.T) {
	cases := []struct {
		name, head string
		want       bool
	}{
		{"v0 list", `[{"id": 0, "timestamp": "x", "source": "user", "message": "hi", "action": "message"}]`, true},
		{"v0 event", `{"id": 4, "source": "agent", "cause": 3, "observation": "read", "content": ""}`, true},
		{"v1 event, kind last", `{"id":"a","timestamp":"t","source":"agent","thought":[],"action":{"kind":"X"},"kind":"ActionEvent"}`, true},
		{"v1 system prompt cut", `{"id":"a","timestamp":"t","source":"agent","system_prompt":{"type":"text","text":"You are`, true},
		{"eval output", `{"instance_id":"a","test_result":{"git_patch":"diff`, true},
		{"resolver output", `{"issue":{"owner":"o"},"issue_type":"issue","instruction":"x"}`, true},
		{"claude code line", `{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","timestamp":"t"}`, false},
		{"codex line", `{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`, false},
		{"swe-agent history", `{"history": [{"role": "system", "agent": "main"}]}`, false},
		{"chat list", `[{"role": "user", "content": "hi"}]`, false},
		{"preds", `{"instance_id": "a", "model_patch": "diff", "model_name_or_path": "m"}`, false},
	}
	for _, c := range cases {
		if got := sniffOpenHands([]byte(c.head), "x"); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	for _, name := range append(append(append([]string{}, ohSamples...), sweSamples...), miniDict, miniList) {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		head := data[:min(len(data), sniffSize)]
		isOH := strings.HasPrefix(name, "openhands/")
		if sniffOpenHands(head, name) != isOH {
			t.Errorf("%s: OpenHands sniffer says %v", name, !isOH)
		}
		if isOH && (sniffSWEAgent(head, name) || sniffMiniSWEAgent(head, name)) {
			t.Errorf("%s: claimed by another sniffer", name)
		}
	}
}

// TestOpenHandsEntryBodies checks the bodies are ones the session package
// knows and that results carry text.
func TestOpenHandsEntryBodies(t *testing.T) {
	r := readTestdata(t, ohSamples[3])
	for _, e := range r.runs[0].entries {
		switch b := e.Body.(type) {
		case *session.Message:
			for _, bl := range b.Message.Content {
				if bl.Type == llm.BlockToolResult && resultText(bl) == "" {
					t.Errorf("entry %s: empty result", e.ID)
				}
			}
		case *session.Custom:
		default:
			t.Errorf("entry %s: body %T", e.ID, e.Body)
		}
	}
}

func FuzzOpenHands(f *testing.F) {
	for _, name := range ohSamples {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 16<<10)])
	}
	f.Add([]byte(`{"instance_id":"a","history":[[{"action":"run","command":"x"},{"observation":"run","exit_code":3}],7,{"kind":"ObservationEvent","source":"x"}]}`))
	f.Add([]byte(`{"id":1,"source":"agent","action":"run","tool_call_metadata":{"total_calls_in_response":9,"model_response":{"id":"r"}}}` + "\n" + `{"id":2,"source":"agent","observation":"run"}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(data) })
}

// TestOpenHandsOutputRunsRepeat reads an output file whose runs are the
// same line twice: the second run must read exactly as the first, whatever
// state the first left behind.
func TestOpenHandsOutputRunsRepeat(t *testing.T) {
	for _, file := range []string{ohSamples[3], ohSamples[2]} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			line := bytes.TrimSpace(data)
			if file == ohSamples[2] {
				// Loose events, one per line: made into one output line.
				var events []json.RawMessage
				for _, l := range bytes.Split(line, []byte("\n")) {
					events = append(events, json.RawMessage(l))
				}
				raw, err := json.Marshal(map[string]any{"instance_id": "a__b-1", "instruction": "Fix add.", "history": events})
				if err != nil {
					t.Fatal(err)
				}
				line = raw
			}
			twice := append(append(append(append([]byte(nil), line...), '\n'), line...), '\n')
			r, err := readTranscript(bytes.NewReader(twice), "output.jsonl")
			if err != nil || r.err != nil {
				t.Fatal(err, r.err)
			}
			if len(r.runs) != 2 {
				t.Fatalf("%d runs, want 2", len(r.runs))
			}
			a, b := r.runs[0], r.runs[1]
			checkRun(t, a)
			checkRun(t, b)
			if len(a.steps) != len(b.steps) || len(a.entries) != len(b.entries) {
				t.Fatalf("runs of %d and %d steps, %d and %d entries", len(a.steps), len(b.steps), len(a.entries), len(b.entries))
			}
			for i := range a.entries {
				ea, eb := a.entries[i], b.entries[i]
				if strings.TrimPrefix(ea.ID, "0:") != strings.TrimPrefix(eb.ID, "1:") ||
					strings.TrimPrefix(ea.ParentID, "0:") != strings.TrimPrefix(eb.ParentID, "1:") ||
					!ea.Time.Equal(eb.Time) || !reflect.DeepEqual(ea.Body, eb.Body) {
					t.Errorf("entry %d: first run %s %+v, second %s %+v", i, ea.ID, ea.Body, eb.ID, eb.Body)
				}
			}
		})
	}
}
