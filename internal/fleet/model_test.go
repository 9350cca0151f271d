package fleet

import (
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm/anthropic"
)

// TestModelAdvisor runs a model advisor (on fakellm, over real HTTP)
// through a worker: its steer comes back as a note, and a second step it
// finds nothing in gives none.
func TestModelAdvisor(t *testing.T) {
	llmsrv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - steps:
      - tool_calls:
          - name: advise
            arguments: {note: "Run the tests before committing.", severity: concern}
      - text: Nothing to add.
`))
	m, err := anthropic.New(anthropic.Config{BaseURL: llmsrv.URL(), APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	factory := func(info SessionInfo, h advisor.Host) (*advisor.Runtime, error) {
		return advisor.New(advisor.Options{Model: m, ModelName: "anthropic/m", Host: h, Start: info.Start})
	}
	s := natstest.Start(t)
	reviewed := make(chan Reviewed, 4)
	runWorker(t, s, WorkerOptions{Tenant: "acme", Factory: factory, OnReviewed: func(r Reviewed) { reviewed <- r }}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	publish(t, c, "s1", 1)
	n := waitNote(t, c)
	if n.ID != "s1.1.0" || n.Kind != KindSteer || n.Advice.Note != "Run the tests before committing." || n.Advice.Severity != advisor.SeverityConcern {
		t.Fatalf("note %+v", n)
	}
	if r := <-reviewed; r.Seq != 1 || r.Notes < 1 || len(r.Models) != 1 || r.Models[0].Model != "anthropic/m" || r.Models[0].Usage.Output == 0 {
		t.Fatalf("review %+v, want a note and the model's usage", r)
	}
	publish(t, c, "s1", 2)
	r := <-reviewed
	if r.Seq != 2 || r.Notes != 0 || len(r.Models) != 1 || r.Models[0].Usage.PromptTokens() == 0 {
		t.Fatalf("second review %+v, want no note, one call's usage", r)
	}
	if got := len(llmsrv.Requests()); got != 2 {
		t.Errorf("%d model requests, want 2 (advise, which ends the first review; the second step)", got)
	}
}
