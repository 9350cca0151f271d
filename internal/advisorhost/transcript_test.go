package advisorhost_test

import (
	"os"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestTranscriptAppendsAcrossAdvisors(t *testing.T) {
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ref := llm.Ref{Provider: "fake", Model: "adv"}
	model := func() llm.Ref { return ref }
	for i := range 2 { // two advisors of one session, one after the other
		tr, err := advisorhost.OpenTranscript(sess, model, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		tr.Record(llm.UserText("### Session update\n\n**user**: go"), llm.Usage{})
		tr.Record(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("reply " + string(rune('A'+i)))}}, llm.Usage{Input: 10, Output: 3})
		if i == 1 { // a consult, opening with its update
			tr.Record(llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("### Session update\n\nx"), llm.Text(advisor.ConsultHeading + "\n\nq")}}, llm.Usage{})
			tr.Record(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("answer")}}, llm.Usage{Input: 10, Output: 3})
		}
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
	}
	h, entries, err := session.ReadFile(advisorhost.TranscriptPath(sess))
	if err != nil {
		t.Fatal(err)
	}
	if h.Parent == nil || h.Parent.Kind != session.ParentAdvisor || h.Parent.ID != sess.ID() {
		t.Errorf("header parent %+v, want the advisor of %s", h.Parent, sess.ID())
	}
	var kinds []string
	for _, e := range entries {
		switch b := e.Body.(type) {
		case *session.Custom:
			kinds = append(kinds, b.CustomType)
		case *session.Message:
			kinds = append(kinds, string(b.Message.Role)+":"+b.Model.String())
			if b.Usage.Output != 3 {
				t.Errorf("reply usage %+v", b.Usage)
			}
		}
	}
	if got := strings.Join(kinds, " "); got != "advisor_update assistant:fake/adv advisor_update assistant:fake/adv advisor_consult assistant:fake/adv" {
		t.Errorf("entries: %s", got)
	}
}

// TestTranscriptLateWriteAfterDrop: once closed, the writer never
// recreates a file its session's drop removed.
func TestTranscriptLateWriteAfterDrop(t *testing.T) {
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := advisorhost.OpenTranscript(sess, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	tr.Record(llm.UserText("### Session update\n\nfirst"), llm.Usage{})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sess.Drop(); err != nil {
		t.Fatal(err)
	}
	tr.Record(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("late")}}, llm.Usage{})
	if _, err := os.Stat(advisorhost.TranscriptPath(sess)); !os.IsNotExist(err) {
		t.Errorf("a late write recreated the dropped transcript: %v", err)
	}
}
