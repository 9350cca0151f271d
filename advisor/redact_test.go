package advisor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// The secrets a workspace's .env holds, assembled at run time so that no
// scanner mistakes this file for a leak.
var (
	envGitHub   = "ghp_" + "R4nd0mT0kenF0rTheEgressTestAbCdEf012345"
	envStripe   = "sk_live_" + "51EgressTestStr1peKeyXyZ"
	envPassword = "hunter2" + "xyz"
	envDeploy   = "deploy-" + "7f3a9c2e-live"
)

// dotEnv writes a .env with every kind of secret into a new folder and
// returns the folder.
func dotEnv(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	text := "GITHUB_TOKEN=" + envGitHub + "\nSTRIPE_KEY=" + envStripe + "\nPASSWORD=" + envPassword + "\nDEPLOY=" + envDeploy + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// noSecret fails the test for each seeded secret in s.
func noSecret(t *testing.T, where, s string) {
	t.Helper()
	for _, secret := range []string{envGitHub, envStripe, envPassword, envDeploy} {
		if strings.Contains(s, secret) {
			t.Errorf("%s holds the secret %q", where, secret)
		}
	}
}

// The advisor's read-only tools are its own way into the workspace: what
// they return passes the Redactor before the advisor model sees it, and
// the transcript (what the Recorder keeps and a dump shows) is the same.
func TestRuntimeRedactsItsToolResults(t *testing.T) {
	dir := dotEnv(t)
	srv, m := fakeServer(t, `
rules:
  - steps:
      - tool_calls:
          - {name: read, arguments: {path: .env}}
          - {name: search, arguments: {pattern: "sk_live", literal: true}}
          - {name: find, arguments: {pattern: "*.env"}}
      - text: Nothing to add.
`)
	red := history.NewRedactor([]string{"DEPLOY_TOKEN=" + envDeploy}, nil)
	h := startRuntime(t, m, func(o *Options) { o.Roots = []string{dir}; o.Redactor = red })
	h.r.Notify(h.host.step("checking the configuration"))
	h.waitFor("the review", func(s Status) bool { return s.Reviews == 1 })

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the update and the tool results", len(reqs))
	}
	body := string(reqs[1].Body)
	noSecret(t, "the request after the tools ran", body)
	// The tools did run, and showed the file with its secrets hidden.
	for _, want := range []string{"GITHUB_TOKEN=[REDACTED:github-token]", "[REDACTED:stripe-key]", "PASSWORD=[REDACTED:secret-assignment]", "[REDACTED:DEPLOY_TOKEN]"} {
		if !strings.Contains(body, want) {
			t.Errorf("the tool results lack %q:\n%s", want, body)
		}
	}
	tr := h.r.Transcript()
	noSecret(t, "the compact dump", tr.Compact())
	noSecret(t, "the raw dump", tr.Raw("m"))
}

// Everything else that reaches the advisor model is redacted too: the
// system prompt (which carries WATCHDOG.md), the detectors' findings,
// and an error quoted back in a tool result.
func TestRuntimeRedactsPromptHintsAndErrors(t *testing.T) {
	srv, m := fakeServer(t, `
rules:
  - steps:
      - tool_calls: [{name: advise, arguments: {note: "Stop reading .env.", severity: concern}}]
      - text: Nothing to add.
`)
	red := history.NewRedactor(nil, nil)
	det := &fakeDetector{notes: []Advice{{Note: "the step printed PASSWORD=" + envPassword, Severity: SeverityNit}}}
	h := startRuntime(t, m, func(o *Options) {
		o.Redactor = red
		o.Detector = det
		o.System = DefaultSystemPrompt + "\n\nEspecially pay attention to:\n<attention source=\"WATCHDOG.md\">\nNever log " + envStripe + ".\n</attention>"
	})
	h.host.mu.Lock()
	h.host.steerErr = errors.New("agent gone; its last output was GITHUB_TOKEN=" + envGitHub)
	h.host.mu.Unlock()
	h.r.Notify(h.host.step("reading the configuration"))
	h.waitFor("the review", func(s Status) bool { return s.Reviews == 1 })

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the update and the advise result", len(reqs))
	}
	for i, r := range reqs {
		noSecret(t, "request "+string(rune('1'+i)), string(r.Body))
	}
	body := string(reqs[1].Body)
	for _, want := range []string{"Never log [REDACTED:stripe-key]", "PASSWORD=[REDACTED:secret-assignment]", "GITHUB_TOKEN=[REDACTED:github-token]"} {
		if !strings.Contains(body, want) {
			t.Errorf("the second request lacks %q:\n%s", want, body)
		}
	}
	noSecret(t, "the raw dump", h.r.Transcript().Raw("m"))
}

// fakeDetector reports its notes for the first entries it observes.
type fakeDetector struct{ notes []Advice }

func (d *fakeDetector) Observe([]session.Entry) []Advice {
	n := d.notes
	d.notes = nil
	return n
}

func (d *fakeDetector) Reset() {}

// A compaction summary the advisor model writes enters the context as
// user text, and passes the Redactor like everything else there.
func TestCompactionSummaryIsRedacted(t *testing.T) {
	_, m := fakeServer(t, `
rules:
  - steps:
      - text: "The agent printed `+envGitHub+` twice."
`)
	r := &Runtime{opts: Options{Redactor: history.NewRedactor(nil, nil), CallTimeout: bound}, model: m, window: 1000}
	for range 8 {
		r.appendMessage(llm.UserText("### Session update\n\n"+strings.Repeat("x", 400)), llm.Usage{})
		r.appendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Nothing.")}}, llm.Usage{})
	}
	if !r.compactOwn(context.Background(), 2000) {
		t.Fatal("compaction did not run")
	}
	text := r.messages[0].Content[0].Text
	if !strings.HasPrefix(text, MemoryHeading) || !strings.Contains(text, "[REDACTED:github-token]") {
		t.Errorf("memory = %q, want it redacted", text)
	}
	noSecret(t, "the memory", text)
}

// A secret that straddles the point where read or search cut a long line
// is hidden whole before the cut, so no first half of it shows (the
// redaction of the context could no longer recognise a half).
func TestRuntimeRedactsLongLinesBeforeTheyAreCut(t *testing.T) {
	dir := t.TempDir()
	// read cuts at 2000 bytes, search at 500: a key starts just before each.
	text := strings.Repeat("x", 1984) + " " + envGitHub + "\n" + strings.Repeat("y", 480) + " sk=" + envStripe + "\n"
	if err := os.WriteFile(filepath.Join(dir, "bundle.js"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, m := fakeServer(t, `
rules:
  - steps:
      - tool_calls:
          - {name: read, arguments: {path: bundle.js}}
          - {name: search, arguments: {pattern: "sk=", literal: true}}
      - text: Nothing to add.
`)
	h := startRuntime(t, m, func(o *Options) { o.Roots = []string{dir}; o.Redactor = history.NewRedactor(nil, nil) })
	h.r.Notify(h.host.step("looking at the bundle"))
	h.waitFor("the review", func(s Status) bool { return s.Reviews == 1 })

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	body := string(reqs[1].Body)
	for _, half := range []string{envGitHub[:10], envStripe[:12]} {
		if strings.Contains(body, half) {
			t.Errorf("the cut line shows %q of a secret", half)
		}
	}
	if !strings.Contains(body, "line truncated") || !strings.Contains(body, "more bytes]") {
		t.Errorf("the lines were not cut:\n%.4000s", body)
	}
}
