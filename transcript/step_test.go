package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Entries for the stepper tests, named by what they hold.

func stUser(id, text string) session.Entry {
	return session.Entry{ID: id, Body: &session.Message{Message: llm.UserText(text)}}
}

// stReply is an assistant message with text and one call per id in calls.
func stReply(id, text string, calls ...string) session.Entry {
	m := llm.Message{Role: llm.RoleAssistant}
	if text != "" {
		m.Content = append(m.Content, llm.Thinking("hmm", ""), llm.Text(text))
	}
	for _, c := range calls {
		m.Content = append(m.Content, llm.ToolCall(c, "bash", json.RawMessage(`{"command":"`+c+`"}`)))
	}
	return session.Entry{ID: id, Body: &session.Message{Message: m}}
}

// stResults is a user message answering the calls in ids; an id ending in
// "!" failed.
func stResults(id string, ids ...string) session.Entry {
	m := llm.Message{Role: llm.RoleUser}
	for _, c := range ids {
		failed := strings.HasSuffix(c, "!")
		c = strings.TrimSuffix(c, "!")
		m.Content = append(m.Content, llm.ToolResult(c, failed, llm.Text("out of "+c)))
	}
	return session.Entry{ID: id, Body: &session.Message{Message: m}}
}

func stCompaction(id string) session.Entry {
	return session.Entry{ID: id, Body: &session.Compaction{Summary: "earlier"}}
}

// stDescribe renders steps as "N:reply[results](context)".
func stDescribe(steps []Step) string {
	var parts []string
	for _, s := range steps {
		var res, ctx []string
		for _, e := range s.Results {
			res = append(res, e.ID)
		}
		for _, e := range s.Context {
			ctx = append(ctx, e.ID)
		}
		parts = append(parts, fmt.Sprintf("%d:%s[%s](%s)", s.N, s.Reply.ID, strings.Join(res, " "), strings.Join(ctx, " ")))
	}
	return strings.Join(parts, " ")
}

func TestStepper(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []session.Entry
		// after lists, for each entry, the steps Add returned.
		after []string
		flush string
	}{{
		name:    "a reply without calls completes at once",
		entries: []session.Entry{stUser("u1", "hi"), stReply("a1", "hello")},
		after:   []string{"", "1:a1[](u1)"},
	}, {
		name: "results attach by call id and complete the step",
		entries: []session.Entry{
			stUser("u1", "go"),
			stReply("a1", "", "c1", "c2"),
			stResults("r1", "c2"),
			stResults("r2", "c1!"),
			stReply("a2", "done"),
		},
		after: []string{"", "", "", "1:a1[r1 r2](u1)", "2:a2[]()"},
	}, {
		name: "a new reply closes a step still waiting for results",
		entries: []session.Entry{
			stReply("a1", "", "c1", "c2"),
			stResults("r1", "c1"),
			stReply("a2", "", "c3"),
			stResults("r2", "c3"),
		},
		after: []string{"", "", "1:a1[r1]()", "2:a2[r2]()"},
	}, {
		name: "a new reply without calls closes the partial step and completes too",
		entries: []session.Entry{
			stReply("a1", "", "c1"),
			stReply("a2", "gave up"),
		},
		after: []string{"", "1:a1[]() 2:a2[]()"},
	}, {
		name: "results for calls the step did not make are context",
		entries: []session.Entry{
			stReply("a1", "", "c1"),
			stResults("r0", "c9"),
			stCompaction("k1"),
			stResults("r1", "c1"),
			stUser("u2", "next"),
			stReply("a2", "ok"),
		},
		after: []string{"", "", "", "1:a1[r1]()", "", "2:a2[](r0 k1 u2)"},
	}, {
		name: "flush returns the step still waiting",
		entries: []session.Entry{
			stUser("u1", "go"),
			stReply("a1", "", "c1", "c2"),
			stResults("r1", "c1"),
		},
		after: []string{"", "", ""},
		flush: "1:a1[r1](u1)",
	}, {
		name:    "flush drops a trailing prompt",
		entries: []session.Entry{stReply("a1", "hi"), stUser("u2", "thanks")},
		after:   []string{"1:a1[]()", ""},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var s Stepper
			for i, e := range tc.entries {
				if got := stDescribe(s.Add(e)); got != tc.after[i] {
					t.Errorf("Add(%s) = %q, want %q", e.ID, got, tc.after[i])
				}
			}
			st, ok := s.Flush()
			got := ""
			if ok {
				got = stDescribe([]Step{st})
			}
			if got != tc.flush {
				t.Errorf("Flush = %q, want %q", got, tc.flush)
			}
		})
	}
}

// TestStepperFlushStartsOver: after Flush, steps are numbered from 1 again
// and nothing of the old run leaks into the new one.
func TestStepperFlushStartsOver(t *testing.T) {
	var s Stepper
	s.Add(stUser("u1", "first run"))
	s.Add(stReply("a1", "one"))
	s.Add(stReply("a2", "", "c1"))
	s.Add(stUser("u2", "left over"))
	if st, ok := s.Flush(); !ok || st.N != 2 || st.Reply.ID != "a2" {
		t.Fatalf("Flush = %+v, %v; want step 2 (a2)", st, ok)
	}
	if _, ok := s.Flush(); ok {
		t.Error("a second Flush returned a step")
	}
	got := stDescribe(s.Add(stResults("r1", "c1")))
	got += stDescribe(s.Add(stReply("b1", "new run")))
	if want := "1:b1[](r1)"; got != want {
		t.Errorf("after Flush: %q, want %q", got, want)
	}
}

func TestStepAccessors(t *testing.T) {
	var s Stepper
	s.Add(stReply("a1", "look", "c1", "c2"))
	steps := s.Add(stResults("r1", "c1!", "c2"))
	if len(steps) != 1 {
		t.Fatalf("%d steps, want 1", len(steps))
	}
	if extra, ok := s.Flush(); ok {
		t.Errorf("the step completed on its results, yet Flush gave %+v", extra)
	}
	st := steps[0]
	if st.Message() == nil || st.Text() != "look" {
		t.Errorf("Text() = %q, want look (thinking left out)", st.Text())
	}
	calls := st.Calls()
	if len(calls) != 2 || calls[0].ID != "c1" || calls[1].ID != "c2" {
		t.Errorf("Calls() = %+v", calls)
	}
	if r, ok := st.Result("c1"); !ok || !r.IsError {
		t.Errorf("Result(c1) = %+v, %v; want the failed result", r, ok)
	}
	if r, ok := st.Result("c2"); !ok || r.IsError || r.Content[0].Text != "out of c2" {
		t.Errorf("Result(c2) = %+v, %v", r, ok)
	}
	if _, ok := st.Result("c3"); ok {
		t.Error("Result(c3) found a result for a call never made")
	}
	var zero Step
	if zero.Message() != nil || zero.Calls() != nil || zero.Text() != "" {
		t.Error("a zero step is not empty")
	}
}
