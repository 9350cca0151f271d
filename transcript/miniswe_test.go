package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

const (
	miniDict = "mini-swe-agent/calc.traj.json"
	miniList = "mini-swe-agent/calc.list.traj.json"
)

func TestMiniSWEAgentDict(t *testing.T) {
	r := readTestdata(t, miniDict)
	if r.format != FormatMiniSWEAgent {
		t.Fatalf("format %q", r.format)
	}
	if len(r.runs) != 1 {
		t.Fatalf("%d runs, want 1", len(r.runs))
	}
	run := r.runs[0]
	checkRun(t, run)
	if run.info.Model != "deepseek/deepseek-chat" || run.info.CWD != "/testbed" {
		t.Errorf("run info %+v", run.info)
	}
	if got := firstText(run); !strings.Contains(got, "calc.add returns the wrong result") {
		t.Errorf("first entry is not the task: %.80q", got)
	}
	// 9 model calls making 10 bash calls (one reply makes two); two
	// commands exit non-zero and one times out; the reply without a call
	// is not recorded, only the harness's complaint; the submitting call
	// is answered by the submission.
	want := stepStats{steps: 9, calls: 10, answered: 10, failed: 3}
	if got := statsOf(run); got != want {
		t.Errorf("stats %+v, want %+v", got, want)
	}
	last := run.steps[len(run.steps)-1]
	res, _ := last.Result(last.Calls()[0].ID)
	if !strings.HasPrefix(resultText(res), "diff --git a/calc.py b/calc.py") {
		t.Errorf("the last call is not answered by the submission: %.60q", resultText(res))
	}
	if got := exitDetails(run); got != `{"exit_status":"Submitted","instance_id":"example__calc-1"}` {
		t.Errorf("exit entry %s", got)
	}
	first := run.steps[0]
	if first.Calls()[0].ID != "call_00_calc01qX" || first.Calls()[0].Name != "bash" {
		t.Errorf("first call %+v", first.Calls()[0])
	}
	if second := run.steps[1].Calls(); len(second) != 2 || second[1].ID != "call_01_calc02qY" {
		t.Errorf("second reply's calls %+v", second)
	}
	// The complaint about the reply without a call is the next step's
	// context.
	if ctx := run.steps[3].Context; len(ctx) != 1 || !strings.HasPrefix(ctx[0].Body.(*session.Message).Message.Text(), "Tool call error:") {
		t.Errorf("fourth step's context %+v", ctx)
	}
	m := first.Message()
	if m.Model.Model != "deepseek-chat" || m.Usage.Output != 95 || m.Usage.CacheRead != 256 || m.Usage.Input != 1194 {
		t.Errorf("first reply model %v usage %+v", m.Model, m.Usage)
	}
	if m.StopReason != llm.StopToolUse {
		t.Errorf("stop reason %q", m.StopReason)
	}
	if first.Reply.Time.IsZero() || first.Reply.Time.After(last.Reply.Time) {
		t.Errorf("times %v .. %v", first.Reply.Time, last.Reply.Time)
	}
	if !r.noted("system prompt skipped") || len(r.notes) != 1 {
		t.Errorf("notes %v", r.notes)
	}
}

func TestMiniSWEAgentList(t *testing.T) {
	r := readTestdata(t, miniList)
	if r.format != FormatMiniSWEAgent || len(r.runs) != 1 {
		t.Fatalf("format %q, %d runs", r.format, len(r.runs))
	}
	run := r.runs[0]
	checkRun(t, run)
	// Seven replies, one with two actions (rejected by the harness, so
	// without calls); the six calls are answered, one failing; the last
	// user message (the submission) answers the submitting call.
	want := stepStats{steps: 7, calls: 6, answered: 6, failed: 1}
	if got := statsOf(run); got != want {
		t.Errorf("stats %+v, want %+v", got, want)
	}
	first := run.steps[0]
	c := first.Calls()[0]
	if c.ID != "call-1" || c.Name != "bash" || string(c.Arguments) != `{"command":"ls"}` {
		t.Errorf("first call %+v %s", c, c.Arguments)
	}
	if s := run.steps[1]; len(s.Calls()) != 0 || !strings.Contains(s.Text(), "```bash\ncat test_calc.py") {
		t.Errorf("the reply with two actions: calls %+v, text %q", s.Calls(), s.Text())
	}
	if strings.Contains(first.Text(), "```") || !strings.HasPrefix(first.Text(), "THOUGHT: I'll start by listing") {
		t.Errorf("reply text keeps the action block: %q", first.Text())
	}
	if exitDetails(run) != "" {
		t.Errorf("a list records no exit, got %s", exitDetails(run))
	}
}

// miniDoc builds a mini-swe-agent document around messages.
func miniDoc(t *testing.T, info string, messages ...any) []byte {
	t.Helper()
	ms, err := json.Marshal(messages)
	if err != nil {
		t.Fatal(err)
	}
	if info == "" {
		info = `{"exit_status": "Submitted", "mini_version": "1.9.0", "config": {"model": {"model_name": "m"}}}`
	}
	return []byte(`{"info": ` + info + `, "messages": ` + string(ms) + `, "trajectory_format": "mini-swe-agent-1", "instance_id": "x__y-1"}`)
}

type msg map[string]any

func TestMiniSWEAgentVersion1Text(t *testing.T) {
	data := miniDoc(t, "",
		msg{"role": "system", "content": "You are a helpful assistant."},
		msg{"role": "user", "content": "Fix the bug."},
		msg{"role": "assistant", "content": "THOUGHT: look first.\n\n```bash\nls\n```"},
		msg{"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>"},
		msg{"role": "assistant", "content": "THOUGHT: two at once.\n\n```bash\nls\n```\n\n```bash\npwd\n```"},
		msg{"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."},
		msg{"role": "assistant", "content": "Sorry, no action this time."},
		msg{"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."},
		msg{"role": "assistant", "content": "```bash\npython a.py\n```"},
		msg{"role": "user", "content": "<returncode>1</returncode>\n<output>\nTraceback\n</output>"},
		msg{"role": "assistant", "content": "```bash\nsleep 999\n```"},
		msg{"role": "user", "content": "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>"},
		msg{"role": "assistant", "content": "```bash\necho MINI_SWE_AGENT_FINAL_OUTPUT\n```"},
		msg{"role": "user", "content": ""},
	)
	r, err := readTranscript(bytes.NewReader(data), "run.json")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	if run.info.Model != "m" {
		t.Errorf("model %q", run.info.Model)
	}
	type stepWant struct {
		calls   int
		failed  bool
		context int // entries before the reply: the task, or a harness complaint
	}
	wants := []stepWant{{1, false, 1}, {0, false, 0}, {0, false, 1}, {1, true, 1}, {1, true, 0}, {1, false, 0}}
	if len(run.steps) != len(wants) {
		t.Fatalf("%d steps, want %d", len(run.steps), len(wants))
	}
	for i, w := range wants {
		s := run.steps[i]
		if len(s.Calls()) != w.calls || len(s.Context) != w.context {
			t.Errorf("step %d: %d calls, %d context entries; want %+v", s.N, len(s.Calls()), len(s.Context), w)
			continue
		}
		if w.calls == 1 {
			res, ok := s.Result(s.Calls()[0].ID)
			if !ok || res.IsError != w.failed {
				t.Errorf("step %d: result %v, error %v; want error %v", s.N, ok, res.IsError, w.failed)
			}
		}
	}
	// The empty last message (a submission with no output) answers the
	// submitting call; the exit status comes from info.
	if got := exitDetails(run); got != `{"exit_status":"Submitted","instance_id":"x__y-1"}` {
		t.Errorf("exit %s", got)
	}
}

func TestMiniSWEAgentFormatErrorAnswersRejectedCalls(t *testing.T) {
	data := miniDoc(t, "",
		msg{"role": "user", "content": "task"},
		msg{"role": "assistant", "content": "", "tool_calls": []any{
			msg{"id": "c1", "function": msg{"name": "bash", "arguments": `{"cmd": "ls"}`}},
			msg{"id": "c2", "function": msg{"name": "shell", "arguments": `not json`}},
		}},
		msg{"role": "user", "content": "Tool call error: Missing 'command'", "extra": msg{"interrupt_type": "FormatError"}},
		msg{"role": "assistant", "content": "ok", "tool_calls": []any{msg{"id": "c3", "function": msg{"name": "bash", "arguments": `{"command": "ls"}`}}}},
		msg{"role": "tool", "tool_call_id": "c3", "content": "<returncode>0</returncode>", "extra": msg{"returncode": 0, "timestamp": 1775810562.5}},
		msg{"role": "exit", "content": "", "extra": msg{"exit_status": "LimitsExceeded"}},
		msg{"role": "narrator", "content": "?"},
	)
	r, err := readTranscript(bytes.NewReader(data), "x")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	if got := statsOf(run); got != (stepStats{steps: 2, calls: 3, answered: 3, failed: 2}) {
		t.Errorf("stats %+v", got)
	}
	c2 := run.steps[0].Calls()[1]
	if c2.Name != "shell" || string(c2.Arguments) != `{"raw":"not json"}` {
		t.Errorf("second call %+v %s", c2, c2.Arguments)
	}
	res := run.entries[4]
	if want := "2026-04-10T08:42:42.5Z"; res.Time.Format("2006-01-02T15:04:05.999Z07:00") != want {
		t.Errorf("time %v, want %s", res.Time, want)
	}
	if got := exitDetails(run); got != `{"exit_status":"LimitsExceeded","instance_id":"x__y-1"}` {
		t.Errorf("exit %s", got)
	}
	if !r.noted(`unknown role "narrator"`) {
		t.Errorf("notes %v", r.notes)
	}
}

func TestMiniSWEAgentUnknownKeys(t *testing.T) {
	data := []byte(`{"info": {"mini_version": "3.0", "config": 5}, "messages": [{"role": "user", "content": "t"}, {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}], "extra_stuff": {"a": [1, {"b": 2}]}, "trajectory_format": "mini-swe-agent-9"}`)
	r, err := readTranscript(bytes.NewReader(data), "x")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if len(r.runs) != 1 || len(r.runs[0].steps) != 1 || r.runs[0].steps[0].Text() != "hi" {
		t.Fatalf("runs %+v", r.runs)
	}
	for _, want := range []string{"info of an unexpected shape", `unknown key "extra_stuff"`, "unknown trajectory_format"} {
		if !r.noted(want) {
			t.Errorf("no note %q in %v", want, r.notes)
		}
	}
}

func TestMiniSWEAgentTruncated(t *testing.T) {
	for _, name := range []string{miniDict, miniList} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		checkCuts(t, filepath.Base(name), data, 40)
	}
}

func TestMiniSWEAgentReadError(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", miniDict))
	if err != nil {
		t.Fatal(err)
	}
	checkStopEarly(t, "run.traj.json", data)
	// The sample fits in the detection window; a long run puts the
	// messages, and the failure, past it.
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	msgs := doc["messages"].([]any)
	for len(msgs) < 200 {
		msgs = append(msgs, msgs[2:len(msgs)-1]...)
	}
	doc["messages"] = msgs
	big, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	checkIOError(t, "run.traj.json", big)
}

func TestSniffMiniSWEAgent(t *testing.T) {
	cases := []struct {
		name, file string
		head       string
		want       bool
	}{
		{"dict", "a.traj.json", `{"info": {"mini_version": "2.2.7"}, "messages": []}`, true},
		{"dict by name", "a.traj.json", `{"info": {"exit_status": "Submitted"`, true},
		{"dict without marker", "a.json", `{"info": {"exit_status": "Submitted"}}`, false},
		{"list", "a.json", `[{"role": "system", "content": "You are"}, {"role": "user"`, true},
		{"list, content first", "a.json", `[{"content": "hi", "role": "user"}]`, true},
		{"openhands events", "a.json", `[{"id": 0, "source": "user", "action": "message", "role": "user"}]`, false},
		{"swe-agent", "a.traj", `{"trajectory": [], "history": [{"role": "system", "agent": "main"}], "info": {"mini_version": "x"}}`, false},
		{"jsonl line", "a.jsonl", `{"type": "message", "role": "user"}` + "\n", false},
		{"text", "a.md", "# aider chat started at 2024-01-01 10:00:00\n", false},
	}
	for _, c := range cases {
		if got := sniffMiniSWEAgent([]byte(c.head), c.file); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	for _, name := range []string{miniDict, miniList} {
		if r := readTestdata(t, name); r.format != FormatMiniSWEAgent {
			t.Errorf("%s detected as %q", name, r.format)
		}
	}
}

// TestMiniSWEAgentEntryBodies checks that every entry body is one the
// session package knows.
func TestMiniSWEAgentEntryBodies(t *testing.T) {
	r := readTestdata(t, miniDict)
	for _, e := range r.runs[0].entries {
		switch e.Body.(type) {
		case *session.Message, *session.Custom:
		default:
			t.Errorf("entry %s: body %T", e.ID, e.Body)
		}
	}
}

func FuzzMiniSWEAgent(f *testing.F) {
	for _, name := range []string{miniDict, miniList} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 16<<10)])
	}
	f.Add([]byte(`{"info": {"mini_version": "2"}, "messages": [{"role": "assistant", "tool_calls": [{"id": "a"}]}, {"role": "exit"}]}`))
	f.Add([]byte(`[{"role": "user", "content": [1, 2]}, {"role": "tool", "tool_call_id": 7}]`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(data) })
}
