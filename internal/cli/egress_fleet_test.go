package cli_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/natstest"
)

// fleetSeeds are the secrets the fleet egress test plants in the
// project's notes, assembled at run time so that no scanner mistakes
// this file for a leak.
var fleetSeeds = map[string]string{
	"db-password": "Pg5ecret" + "Passw0rd-fleet77",
	"aws-secret":  "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYFLEETKEY12",
	"pem":         "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "FleetPemBodyXyZ0123",
	"jwt":         "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiJmbGVldC1lZ3Jlc3MifQ." + "Zm9vYmFyYmF6cXV4ZmxlZXRzaWduYXR1cmU",
	"anthropic":   "sk-ant-api03-" + "FleetEgressKey0123456789abcdefABCDEFghij",
}

// fleetNotes is the project file that holds the seeds, each in the shape
// it has in the wild; NOTES-CANARY shows that the file's text reached
// the fleet.
func fleetNotes() string {
	return "NOTES-CANARY: how to reach production\n" +
		"DATABASE_URL=postgres://app:" + fleetSeeds["db-password"] + "@db.internal:5432/app\n" +
		"AWS_SECRET_ACCESS_KEY=" + fleetSeeds["aws-secret"] + "\n" +
		"ANTHROPIC_API_KEY=" + fleetSeeds["anthropic"] + "\n" +
		"session cookie: " + fleetSeeds["jwt"] + "\n" +
		"-----BEGIN " + "RSA PRIVATE KEY-----\n" + fleetSeeds["pem"] + "\n-----END " + "RSA PRIVATE KEY-----\n"
}

// fleetLeaks returns the names of the seeds found in b.
func fleetLeaks(b []byte) []string {
	var found []string
	for name, secret := range fleetSeeds {
		if strings.Contains(string(b), secret) {
			found = append(found, name)
		}
	}
	return found
}

// TestFleetSecretEgress is issue 28's secret-egress test for fleet mode:
// vigil's agent reads a project file holding a database URL with a
// password, an AWS secret key, an Anthropic key, a JWT and a PEM private
// key, and asks its advisor a question quoting two of them; a `vigil
// serve` worker (the model reviewer, on fakellm) reviews the steps and
// answers. No message on the wire, no message of any stream and no file
// of the nats-server's JetStream store holds a secret, while the file's
// other text is there, redacted where the secrets were.
func TestFleetSecretEgress(t *testing.T) {
	script := `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "cat notes.txt"}}]
      - tool_calls: [{name: ask_advisor, arguments: {question: "QUESTION-CANARY: is ANTHROPIC_SEED the key for postgres://app:DB_SEED@db.internal:5432/app?"}}]
      - text: "FINAL-fleet-egress: done."
  - name: consult
    model: adv
    match: ["### Consult"]
    steps:
      - text: "ANSWER-rotate both."
  - name: review
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "NOTE-CANARY: the notes hold live credentials; do not print them.", severity: nit}}]
      - text: "Sent."
      - text: "Nothing to add."
`
	script = strings.NewReplacer("ANTHROPIC_SEED", fleetSeeds["anthropic"], "DB_SEED", fleetSeeds["db-password"]).Replace(script)
	srv, agentDir, work := fakeSetup(t, script)
	addAdvisorModel(t, agentDir)
	if err := os.WriteFile(filepath.Join(agentDir, "config.yml"), []byte("modelRoles:\n  advisor: fake/adv\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte(fleetNotes()), 0o600); err != nil {
		t.Fatal(err)
	}

	opts := natstest.Options(t)
	storeDir := opts.StoreDir
	ns := natstest.StartWith(t, opts)

	// Everything published in the account, whoever publishes it: the
	// steps, the notes, the usage records, the questions and their
	// answers, the JetStream API's traffic.
	watch, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	var (
		mu   sync.Mutex
		wire []*nats.Msg
	)
	if _, err := watch.Subscribe(">", func(m *nats.Msg) {
		mu.Lock()
		wire = append(wire, m)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}

	// The worker: vigil serve with the model reviewer, the agent folder's
	// advisor model.
	t.Setenv("VIGIL_AGENT_DIR", agentDir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, served := startServe(t, ctx, "--nats", ns.ClientURL(), "--tenant", "acme", "--reviewer", "model")

	writeProjectConfig(t, work, "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 60\n  fleet:\n    url: "+ns.ClientURL()+"\n    tenant: acme\n")
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "-p", "look at the notes")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "FINAL-fleet-egress") {
		t.Fatalf("vigil: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	consulted := false
	for _, r := range srv.Requests() {
		consulted = consulted || r.Rule == "consult"
	}
	if !consulted {
		t.Fatalf("the worker's advisor was not asked the question; stderr:\n%s", stderr.String())
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}

	// The wire.
	mu.Lock()
	question := false
	for _, m := range wire {
		if l := fleetLeaks(m.Data); len(l) > 0 {
			t.Errorf("a message on %s holds %v", m.Subject, l)
		}
		if strings.HasPrefix(m.Subject, fleet.ConsultSubject("acme", "")) && strings.Contains(string(m.Data), "QUESTION-CANARY") {
			question = true
			if !strings.Contains(string(m.Data), "[REDACTED:") {
				t.Errorf("the question %s went without its secrets redacted", m.Data)
			}
		}
	}
	mu.Unlock()
	if !question {
		t.Error("no question to the advisor was seen on the wire")
	}

	// Every message of every stream.
	js, err := jetstream.New(watch)
	if err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer rcancel()
	counts := map[string]int{}
	canary := false
	names := js.StreamNames(rctx)
	for name := range names.Name() {
		st, err := js.Stream(rctx, name)
		if err != nil {
			t.Fatal(err)
		}
		state := st.CachedInfo().State
		for seq := state.FirstSeq; seq <= state.LastSeq && state.Msgs > 0; seq++ {
			m, err := st.GetMsg(rctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				t.Fatalf("stream %s message %d: %v", name, seq, err)
			}
			counts[name]++
			if l := fleetLeaks(m.Data); len(l) > 0 {
				t.Errorf("stream %s message %d (%s) holds %v", name, seq, m.Subject, l)
			}
			canary = canary || strings.Contains(string(m.Data), "NOTES-CANARY") && strings.Contains(string(m.Data), "[REDACTED:")
		}
	}
	if err := names.Err(); err != nil {
		t.Fatal(err)
	}
	if !canary {
		t.Errorf("no stream message holds the notes' text with its secrets redacted: was the file published? %v", counts)
	}
	for _, name := range []string{fleet.StepStream("acme"), fleet.NoteStream("acme"), fleet.UsageStream("acme")} {
		if counts[name] == 0 {
			t.Errorf("stream %s holds no message (%v)", name, counts)
		}
	}

	// Every file of the store, once the server has written all down.
	watch.Close()
	ns.Shutdown()
	ns.WaitForShutdown()
	files, onDisk := 0, false
	err = filepath.WalkDir(storeDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if l := fleetLeaks(data); len(l) > 0 {
			t.Errorf("%s holds %v", path, l)
		}
		onDisk = onDisk || strings.Contains(string(data), "NOTES-CANARY")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !onDisk {
		t.Errorf("none of the store's %d files holds the notes' text: is the store where the steps went?", files)
	}
}
