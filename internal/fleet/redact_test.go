package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// redactSeeds are secrets of shapes the redactor knows, and one it knows
// only as a value of the agent's environment, assembled at run time.
var redactSeeds = map[string]string{
	"anthropic": "sk-ant-api03-" + "RedactFleetKey0123456789abcdefABCDEFgh",
	"jwt":       "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiJyZWRhY3QifQ." + "c2lnbmF0dXJlLWZsZWV0LXJlZGFjdA",
	"password":  "Pg5ecret" + "Redact-77",
	"pem":       "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "RedactPemBody",
	"env":       "deploy-" + "redact-9c2e-live",
}

func seedsIn(b []byte) []string {
	var found []string
	for name, s := range redactSeeds {
		if bytes.Contains(b, []byte(s)) {
			found = append(found, name)
		}
	}
	return found
}

// secretStep is a step whose every kind of entry holds secrets: a call's
// arguments, a tool result, thinking, a custom message's text and
// details, and a compaction's summary.
func secretStep() []session.Entry {
	args, _ := json.Marshal(map[string]string{"command": "psql postgres://app:" + redactSeeds["password"] + "@db:5432/app", "password": redactSeeds["password"]})
	pem := "-----BEGIN " + "PRIVATE KEY-----\n" + redactSeeds["pem"] + "\n-----END " + "PRIVATE KEY-----"
	details, _ := json.Marshal(map[string]string{"token": redactSeeds["jwt"]})
	at := time.Unix(1, 0).UTC()
	return []session.Entry{
		{ID: "a1", Time: at, Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Thinking("The key "+redactSeeds["anthropic"]+" still works.", "sig"),
			{Type: llm.BlockToolCall, ID: "c1", Name: "bash", Arguments: args},
		}}}},
		{ID: "r1", ParentID: "a1", Time: at, Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("c1", false, llm.Text("DEPLOY="+redactSeeds["env"]+"\n"+pem+"\nANTHROPIC_API_KEY="+redactSeeds["anthropic"])),
		}}}},
		{ID: "x1", ParentID: "r1", Time: at, Body: &session.Custom{CustomType: "note", Content: []llm.Block{llm.Text("cookie " + redactSeeds["jwt"])}, Display: true, Details: details}},
		{ID: "k1", ParentID: "x1", Time: at, Body: &session.Compaction{Summary: "Used " + pem, FirstKeptID: "r1"}},
	}
}

// TestClientRedactsSteps: what a client publishes holds none of the
// secrets of its entries (by shape, and the environment's value its
// Redactor knows), the stream's message decodes to as many entries, and
// the same entries publish the same bytes (a reviewer that compares
// steps still sees repeats).
func TestClientRedactsSteps(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	red := history.NewRedactor([]string{"DEPLOY_TOKEN=" + redactSeeds["env"]}, nil)
	c, err := NewClient(context.Background(), nc, ClientOptions{Tenant: "acme", Session: "s1", Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	entries := secretStep()
	before, _ := json.Marshal(entries[1].Body)
	for range 2 {
		if _, err := c.Publish(context.Background(), entries); err != nil {
			t.Fatal(err)
		}
	}
	if after, _ := json.Marshal(entries[1].Body); !bytes.Equal(before, after) {
		t.Error("Publish wrote to the caller's entries")
	}
	js, _ := jetstream.New(nc)
	st, err := js.Stream(context.Background(), StepStream("acme"))
	if err != nil {
		t.Fatal(err)
	}
	var steps [2]Step
	for i := range steps {
		m, err := st.GetMsg(context.Background(), uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		if l := seedsIn(m.Data); len(l) > 0 {
			t.Errorf("step %d holds %v:\n%s", i+1, l, m.Data)
		}
		if !bytes.Contains(m.Data, []byte("[REDACTED:")) {
			t.Errorf("step %d holds no redaction marker: %s", i+1, m.Data)
		}
		if err := json.Unmarshal(m.Data, &steps[i]); err != nil {
			t.Fatal(err)
		}
		decoded, err := steps[i].Decode()
		if err != nil || len(decoded) != len(entries) {
			t.Fatalf("step %d decodes to %d entries (%v), want %d", i+1, len(decoded), err, len(entries))
		}
	}
	for k := range steps[0].Entries {
		if !bytes.Equal(steps[0].Entries[k], steps[1].Entries[k]) {
			t.Errorf("entry %d redacted two ways:\n%s\n%s", k, steps[0].Entries[k], steps[1].Entries[k])
		}
	}
}

// secretAdvisor is a detector that quotes a secret in its one note.
type secretAdvisor struct{}

func (secretAdvisor) Observe([]session.Entry) []advisor.Advice {
	return []advisor.Advice{{Note: "Rotate " + redactSeeds["anthropic"] + " now.", Severity: advisor.SeverityNit}}
}

func (secretAdvisor) Reset() {}

// TestConsultAndNotesRedacted: a question to the fleet's advisor leaves
// the agent with its secrets hidden (the client has no Redactor: the
// shapes are hidden all the same), and a worker's note that quotes a
// secret is published without it.
func TestConsultAndNotesRedacted(t *testing.T) {
	s := natstest.Start(t)
	runWorker(t, s, WorkerOptions{Tenant: "acme", Factory: func(info SessionInfo, h advisor.Host) (*advisor.Runtime, error) {
		return advisor.New(advisor.Options{Detector: secretAdvisor{}, Host: h, Start: info.Start})
	}}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s2")
	publish(t, c, "s2", 1)
	n := waitNote(t, c)
	if l := seedsIn([]byte(n.Advice.Note)); len(l) > 0 || !strings.Contains(n.Advice.Note, "[REDACTED:") {
		t.Errorf("note %q: want the secret redacted", n.Advice.Note)
	}

	// A stand-in for the session's worker that hears the question.
	questions := make(chan []byte, 1)
	sub, err := nc.Subscribe(ConsultSubject("acme", "s3"), func(m *nats.Msg) {
		questions <- m.Data
		_ = m.Respond([]byte(`{"answer":"ok"}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	r := NewRemote(newClient(t, nc, "acme", "s3"), nil, RemoteOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.Consult(ctx, "Is "+redactSeeds["anthropic"]+" the key for postgres://app:"+redactSeeds["password"]+"@db:5432/app?"); err != nil {
		t.Fatal(err)
	}
	q := <-questions
	if l := seedsIn(q); len(l) > 0 || !bytes.Contains(q, []byte("[REDACTED:")) {
		t.Errorf("the question went as %s: want its secrets redacted", q)
	}
}
