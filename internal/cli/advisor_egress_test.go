package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
)

// egressSeeds are the secrets the egress tests plant, assembled at run
// time so that no scanner mistakes this file for a leak: in the
// environment (deploy), in the workspace's .env (the rest), in what the
// agent's bash prints (both), in the agent's thinking (github) and in
// what the advisor's own tools read (the .env again).
var egressSeeds = map[string]string{
	"github":   "ghp_" + "EgressT0kenThatMustNotLeaveAbCdEf012345",
	"stripe":   "sk_live_" + "51EgressStr1peKeyXyZ0099",
	"password": "hunter2" + "xyz",
	"aws":      "AKIA" + "EGRESS7TEST2KEY9",
	"pem":      "MIIEvQIBADANBgkqhkiG9w0" + "BAQEFAASCBKcwggSjAgEAAoIBAQ",
	"deploy":   "deploy-" + "egress-9c2e-live",
}

// egressWorkspace plants the seeds: the environment variable (inherited
// by vigil), the .env, and a WATCHDOG.md that quotes one of them.
func egressWorkspace(t *testing.T, work string) {
	t.Helper()
	t.Setenv("EGRESS_DEPLOY_TOKEN", egressSeeds["deploy"])
	env := "GITHUB_TOKEN=" + egressSeeds["github"] + "\n" +
		"STRIPE_KEY=" + egressSeeds["stripe"] + "\n" +
		"PASSWORD=" + egressSeeds["password"] + "\n" +
		"AWS_ACCESS_KEY_ID=" + egressSeeds["aws"] + "\n" +
		"TLS_KEY=\"-----BEGIN " + "PRIVATE KEY-----\n" + egressSeeds["pem"] + "\n-----END " + "PRIVATE KEY-----\"\n"
	files := map[string]string{
		".env":        env,
		"WATCHDOG.md": "Flag any step that prints " + egressSeeds["stripe"] + " or any other live key.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// egressPrimary is the agent's script: it thinks about a token, then
// prints the .env and the environment's secret, then answers.
const egressPrimary = `
  - name: primary
    model: m
    steps:
      - thinking: "The token GITHUB_SEED from the last session may still be valid."
        tool_calls: [{name: bash, arguments: {command: "cat .env; echo deploying with $EGRESS_DEPLOY_TOKEN"}}]
      - text: "FINAL-egress: the configuration is in .env."
`

// leaks returns the seeds found in body.
func leaks(body string) []string {
	var found []string
	for name, secret := range egressSeeds {
		if strings.Contains(body, secret) {
			found = append(found, name)
		}
	}
	return found
}

// runEgress runs vigil once in print mode over the planted workspace
// with the project's advisor settings cfg, and returns fakellm's requests.
func runEgress(t *testing.T, script, cfg string, args ...string) []fakellm.Request {
	t.Helper()
	srv, agentDir, work := fakeSetup(t, strings.ReplaceAll(script, "GITHUB_SEED", egressSeeds["github"]))
	addAdvisorModel(t, agentDir)
	egressWorkspace(t, work)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := vigilCommand(agentDir, work, append([]string{"-m", "fake/m", "-p", "check the configuration"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "FINAL-egress") {
		t.Fatalf("vigil: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	return srv.Requests()
}

// TestAdvisorSecretEgress is issue 13's secret-egress test for the
// continuous advisor: every request the advisor model receives (its
// session updates, the results of its own read and search over the .env,
// its system prompt with WATCHDOG.md) holds none of the planted secrets,
// while the agent's own requests do (the agent reads what it reads).
func TestAdvisorSecretEgress(t *testing.T) {
	reqs := runEgress(t, `
rules:
`+egressPrimary+`
  - name: advisor
    model: adv
    repeat: true
    steps:
      - tool_calls:
          - {name: read, arguments: {path: .env}}
          - {name: search, arguments: {pattern: "sk_live", literal: true}}
      - text: "Nothing to add."
`, "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n", "--advisor-model", "fake/adv")

	var advisor []string
	primaryLeaks := map[string]bool{}
	for _, r := range reqs {
		body := string(r.Body)
		switch r.Model {
		case "adv":
			advisor = append(advisor, body)
			if l := leaks(body); len(l) > 0 {
				t.Errorf("advisor request %d holds %v", len(advisor), l)
			}
		case "m":
			for _, l := range leaks(body) {
				primaryLeaks[l] = true
			}
		}
	}
	if len(advisor) < 2 {
		t.Fatalf("%d advisor requests, want the update and the results of its tools", len(advisor))
	}
	// The advisor was shown every seed, each hidden: its update (the
	// thinking, the bash output) and its tools' results (.env read and
	// searched), and its system prompt.
	all := strings.Join(advisor, "\n")
	for _, want := range []string{
		"The token [REDACTED:github-token] from the last session",
		"[REDACTED:EGRESS_DEPLOY_TOKEN]",
		"GITHUB_TOKEN=[REDACTED:github-token]",
		".env:2:STRIPE_KEY=[REDACTED:stripe-key]",
		"PASSWORD=[REDACTED:secret-assignment]",
		"[REDACTED:aws-access-key]",
		"[REDACTED:private-key]",
		"prints [REDACTED:stripe-key] or any other live key",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no advisor request holds %q", want)
		}
	}
	// Not redaction's business: the agent's own model is sent what its
	// tools read and what it thought, as any coding agent's is.
	if len(primaryLeaks) != len(egressSeeds) {
		t.Errorf("the agent's requests hold %v of the seeds, want all: were they planted?", primaryLeaks)
	}
}

// TestPeriodicSecretEgress is the same for the periodic mode, whose
// review forks the agent's conversation onto the agent's own model: the
// fork is the advisor's request and holds none of the secrets that the
// agent's requests around it carry.
func TestPeriodicSecretEgress(t *testing.T) {
	reqs := runEgress(t, `
rules:
  - name: review
    model: m
    match: ["### Advisor review"]
    repeat: true
    steps:
      - text: NO_CHANGE
`+egressPrimary, "advisor:\n  enabled: true\n  mode: periodic\n  periodic:\n    everyToolCalls: 1\n")

	forks := 0
	primaryLeaks := map[string]bool{}
	for _, r := range reqs {
		body := string(r.Body)
		if r.Rule != "review" {
			for _, l := range leaks(body) {
				primaryLeaks[l] = true
			}
			continue
		}
		forks++
		if l := leaks(body); len(l) > 0 {
			t.Errorf("fork %d holds %v", forks, l)
		}
		for _, want := range []string{"GITHUB_TOKEN=[REDACTED:github-token]", "[REDACTED:EGRESS_DEPLOY_TOKEN]", "### Advisor review"} {
			if !strings.Contains(body, want) {
				t.Errorf("fork %d lacks %q", forks, want)
			}
		}
	}
	if forks != 1 {
		t.Fatalf("%d forks, want 1 (after the agent's one tool call)", forks)
	}
	if len(primaryLeaks) != len(egressSeeds) {
		t.Errorf("the agent's requests hold %v of the seeds, want all: were they planted?", primaryLeaks)
	}
}
