package transcript

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

const testAdvisory = `<advisory severity="concern" guidance="weigh, don't blindly obey">` + "\nRead the error.\n</advisory>"

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestAdviceClaudeCodeLines checks the shapes of injected text the
// recording does not have: older versions' Stop feedback, hooks that
// return more than advice, a block from a tool hook.
func TestAdviceClaudeCodeLines(t *testing.T) {
	adv := jsonString(testAdvisory)
	lines := strings.Join([]string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"user","content":"fix it"}}`,
		// Stop feedback in a <system-reminder>, not meta (older versions)
		`{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s1","timestamp":"2026-11-30T01:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":` + jsonString("<system-reminder>\nStop hook feedback:\n"+testAdvisory+"\n</system-reminder>") + `}]}}`,
		// Stop feedback that is not (only) advice
		`{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s1","timestamp":"2026-11-30T01:00:03.000Z","isMeta":true,"message":{"role":"user","content":` + jsonString("Stop hook feedback:\nrun the tests\n"+testAdvisory) + `}}`,
		// context from two hooks, one of them not ours
		`{"type":"attachment","uuid":"h1","parentUuid":"u3","sessionId":"s1","timestamp":"2026-11-30T01:00:04.000Z","attachment":{"type":"hook_additional_context","content":[` + adv + `,"lint is slow"],"hookName":"PostToolUse:Bash","toolUseID":"c1","hookEvent":"PostToolUse"},"rendered":[{"content":"<system-reminder>x</system-reminder>"}],"renderedRole":"system"}`,
		// a PostToolUse block
		`{"type":"attachment","uuid":"h2","parentUuid":"h1","sessionId":"s1","timestamp":"2026-11-30T01:00:05.000Z","attachment":{"type":"hook_blocking_error","hookName":"PostToolUse:Bash","toolUseID":"c1","hookEvent":"PostToolUse","blockingError":{"blockingError":` + adv + `,"command":"vigil hook"}},"rendered":[{"content":"<system-reminder>x</system-reminder>"}],"renderedRole":"system"}`,
		// advice without rendered text never reached the model: dropped
		`{"type":"attachment","uuid":"h3","parentUuid":"h2","sessionId":"s1","timestamp":"2026-11-30T01:00:06.000Z","attachment":{"type":"hook_additional_context","content":[` + adv + `],"hookName":"Stop","hookEvent":"Stop"}}`,
		// a user message that is nothing but advice (a steer typed in)
		`{"type":"user","uuid":"u4","parentUuid":"h3","sessionId":"s1","timestamp":"2026-11-30T01:00:07.000Z","message":{"role":"user","content":` + adv + `}}`,
	}, "\n") + "\n"
	res := jlRead(t, []byte(lines), "s1.jsonl", FormatClaudeCode)
	if res.err != nil {
		t.Fatal(res.err)
	}
	entries := res.all()
	want := "user: fix it\ncustom advisor:Stop ctx\ncustom meta ctx\ncustom attachment:hook_additional_context ctx\ncustom advisor:PostToolUse ctx\nuser: <advisory severity=\"concern\" g\n"
	if got := jlShapes(entries); got != want {
		t.Fatalf("entries:\n%s\nwant:\n%s", got, want)
	}
	for i, advice := range []bool{false, true, false, false, true, true} {
		if history.IsAdvice(entries[i]) != advice {
			t.Errorf("entry %d (%s): IsAdvice %v", i, jlShape(entries[i]), !advice)
		}
		k, _ := markOf(entries[i])
		if (k == MarkAdvice) != advice {
			t.Errorf("entry %d (%s): mark %v", i, jlShape(entries[i]), k)
		}
	}
	if got := entryText(entries[1]); got != testAdvisory {
		t.Errorf("Stop advice %q, want the element alone", got)
	}
	if d := string(entries[4].Body.(*session.Custom).Details); d != `{"hookName":"PostToolUse:Bash","toolUseID":"c1"}` {
		t.Errorf("details %s", d)
	}
}

func TestAdviceCodexLines(t *testing.T) {
	const head = `{"timestamp":"2026-11-30T01:00:00.000Z","type":"session_meta","payload":{"id":"t1","cwd":"/w","model_provider":"openai"}}
`
	msg := func(role, text string) string {
		return `{"timestamp":"2026-11-30T01:00:01.000Z","type":"response_item","payload":{"type":"message","role":"` + role + `","content":[{"type":"input_text","text":` + jsonString(text) + `}]}}` + "\n"
	}
	escaped := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace
	tricky := `<advisory severity="nit" guidance="g">` + "\nuse a &lt;b&gt; &amp; not x\n</advisory>"
	lines := msg("developer", testAdvisory) +
		msg("developer", "Project note: scratch folder.") +
		msg("user", `<hook_prompt hook_run_id="stop:0:/h.json">`+escaped(testAdvisory)+`</hook_prompt>`+"\n"+`<hook_prompt hook_run_id="stop:1:/h.json">`+escaped(tricky)+`</hook_prompt>`) +
		msg("user", `<hook_prompt hook_run_id="stop:0:/h.json">`+escaped(testAdvisory)+`</hook_prompt><hook_prompt hook_run_id="stop:1:/other.json">run the tests</hook_prompt>`)
	res := jlRead(t, []byte(head+lines), "rollout.jsonl", FormatCodex)
	if res.err != nil {
		t.Fatal(res.err)
	}
	entries := res.all()
	want := "custom advisor:additionalContext ctx\ncustom developer ctx\ncustom advisor:Stop ctx\ncustom hook_prompt ctx\n"
	if got := jlShapes(entries); got != want {
		t.Fatalf("entries:\n%s\nwant:\n%s", got, want)
	}
	if got, want := entryText(entries[2]), testAdvisory+"\n"+tricky; got != want {
		t.Errorf("Stop advice %q, want %q (unescaped once)", got, want)
	}
	for i, advice := range []bool{true, false, true, false} {
		if history.IsAdvice(entries[i]) != advice {
			t.Errorf("entry %d (%s): IsAdvice %v", i, jlShape(entries[i]), !advice)
		}
	}
}

// TestIsAdvisories compares history.IsAdvisories with history.IsAdvice on a user
// message, the rule it must agree with, on pieces of advisory text put
// together at random.
func TestIsAdvisories(t *testing.T) {
	pieces := []string{testAdvisory, "<advisory>", "</advisory>", "<advisory ", "<advisoryx>", " ", "\n", "text", "<advisory severity=\"blocker\">b</advisory>", "<", ">"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(5) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := sb.String()
		e := session.Entry{Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(s)}}}}
		if history.IsAdvisories(s) != history.IsAdvice(e) {
			t.Fatalf("%q: history.IsAdvisories %v, history.IsAdvice %v", s, history.IsAdvisories(s), history.IsAdvice(e))
		}
	}
}

// TestAdviceRecordingsFastPath reads the recordings with hooks with the
// fast path and with encoding/json alone: the hook attachments' members
// must decode the same.
func TestAdviceRecordingsFastPath(t *testing.T) {
	for _, rec := range followRecordings(t)[2:4] {
		if diff := readBoth(followData(t, rec.path), rec.format); diff != "" {
			t.Errorf("%s: %s", rec.path, diff)
		}
	}
}

// TestWithheldAdvice checks that a note the advisor withheld from the
// agent, as vigil's session records it, is read as what it is (shown to
// the user, not in the model's context) and never as advice the agent
// was given: no step's context holds it and it gets no mark, while a
// delivered note is both.
func TestWithheldAdvice(t *testing.T) {
	note := func(id, parent string, inContext bool, delivery string) string {
		return `{"type":"custom_message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-11-30T01:00:04.000Z","customType":"advisor","content":[{"type":"text","text":` +
			jsonString(testAdvisory) + `}],"display":true,"inContext":` + map[bool]string{true: "true", false: "false"}[inContext] + `,"details":{"delivery":"` + delivery + `"}}`
	}
	lines := strings.Join([]string{
		`{"type":"session","version":1,"id":"w1","cwd":"/w","created":"2026-11-30T01:00:00.000Z"}`,
		`{"type":"message","id":"m1","parentId":null,"timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Fix calc.py."}]}}`,
		`{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-11-30T01:00:02.000Z","message":{"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"bash","arguments":{"command":"pytest"}}]},"model":"fake/m","stopReason":"tool_use"}`,
		`{"type":"message","id":"m3","parentId":"m2","timestamp":"2026-11-30T01:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","id":"c1","content":[{"type":"text","text":"1 failed"}],"is_error":true}]}}`,
		note("a1", "m3", false, "withheld"),
		`{"type":"message","id":"m4","parentId":"a1","timestamp":"2026-11-30T01:00:05.000Z","message":{"role":"assistant","content":[{"type":"tool_call","id":"c2","name":"bash","arguments":{"command":"pytest"}}]},"model":"fake/m","stopReason":"tool_use"}`,
		`{"type":"message","id":"m5","parentId":"m4","timestamp":"2026-11-30T01:00:06.000Z","message":{"role":"user","content":[{"type":"tool_result","id":"c2","content":[{"type":"text","text":"1 failed"}],"is_error":true}]}}`,
		note("a2", "m5", true, "aside"),
		`{"type":"message","id":"m6","parentId":"a2","timestamp":"2026-11-30T01:00:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Reading the error."}]},"model":"fake/m","stopReason":"end_turn"}`,
	}, "\n") + "\n"
	r, err := readTranscript(strings.NewReader(lines), "session.jsonl")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	byID := map[string]session.Entry{}
	for _, e := range run.entries {
		byID[e.ID] = e
	}
	withheld, delivered := byID["a1"], byID["a2"]
	if c, ok := withheld.Body.(*session.Custom); !ok || c.InContext || !c.Display || string(c.Details) != `{"delivery":"withheld"}` {
		t.Fatalf("withheld note read as %+v", withheld.Body)
	}
	if !withheldAdvice(withheld) || withheldAdvice(delivered) {
		t.Errorf("withheldAdvice: withheld %v, delivered %v", withheldAdvice(withheld), withheldAdvice(delivered))
	}
	if len(run.steps) != 3 || len(run.steps[1].Context) != 0 || len(run.steps[2].Context) != 1 || run.steps[2].Context[0].ID != "a2" {
		t.Fatalf("steps %d; contexts %v and %v, want none and the delivered note", len(run.steps), run.steps[1].Context, run.steps[2].Context)
	}
	if k, ok := markOf(withheld); ok {
		t.Errorf("withheld note marked %v", k)
	}
	if k, ok := markOf(delivered); !ok || k != MarkAdvice {
		t.Errorf("delivered note marked %v %v", k, ok)
	}
}
