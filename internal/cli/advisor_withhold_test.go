package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// TestRPCAdvisorAllowPromptInjection is issue 17 item 2 end to end, in
// the continuous mode: the advisor raises a concern about the first step,
// and with advisor.syncBacklog 1 the primary waits for that review. With
// advisor.allowPromptInjection true (the default) the concern is in the
// primary's next request; with it false the advisor reviews the same
// steps, the concern is in /advisor status, in the advisor's transcript
// and in the session as a withheld entry out of context, and in none of
// the primary's requests.
func TestRPCAdvisorAllowPromptInjection(t *testing.T) {
	const advice = "ADVICE-withheld-stop-running-false"
	for _, allow := range []bool{true, false} {
		t.Run(fmt.Sprintf("allow=%v", allow), func(t *testing.T) {
			srv, agentDir, work := fakeSetup(t, advisorScript("false", advice))
			addAdvisorModel(t, agentDir)
			if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n"
			if !allow {
				cfg += "  allowPromptInjection: false\n"
			}
			if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			p := startVigil(t, agentDir, work, "--advisor-model", "fake/adv")
			p.send(map[string]any{"type": "prompt", "id": "1", "message": "run false until it works"})
			p.waitFor("the final answer", func(m map[string]any) bool {
				return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "FINAL-answer")
			})
			p.waitFor("idle", isType("idle"))
			p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
			st := fmt.Sprint(p.waitFor("/advisor status reply", func(m map[string]any) bool { return m["id"] == "st" }))
			file := p.sessionFile()
			p.finish()

			var primary []string
			reviews := 0
			for _, r := range srv.Requests() {
				switch r.Model {
				case "m":
					primary = append(primary, string(r.Body))
				case "adv":
					if strings.Contains(string(r.Body), "### Session update") {
						reviews++
					}
				}
			}
			if len(primary) != 4 || reviews == 0 {
				t.Fatalf("%d primary requests and %d advisor requests, want 4 and some", len(primary), reviews)
			}
			carried := 0
			for _, body := range primary {
				if strings.Contains(body, advice) {
					carried++
				}
			}
			var withheld, delivered int
			for _, e := range checkTree(t, file) {
				if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "advisor" && strings.Contains(c.Content[0].Text, advice) {
					if strings.Contains(string(c.Details), `"withheld"`) {
						withheld++
						if c.InContext || !c.Display {
							t.Errorf("the withheld entry: in context %v, displayed %v", c.InContext, c.Display)
						}
					} else {
						delivered++
					}
				}
			}
			adv, err := os.ReadFile(filepath.Join(strings.TrimSuffix(file, ".jsonl"), session.AdvisorTranscript))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(adv), advice) {
				t.Error("the advisor's transcript lacks its note")
			}

			if allow {
				if carried != 3 || delivered != 1 || withheld != 0 {
					t.Errorf("the concern is in %d of the 3 later requests, %d delivered and %d withheld entries; want it delivered", carried, delivered, withheld)
				}
				if !strings.Contains(st, "Notes: 1 delivered") {
					t.Errorf("/advisor status: %s", st)
				}
				return
			}
			if carried != 0 {
				t.Errorf("the withheld concern is in %d primary requests", carried)
			}
			if withheld != 1 || delivered != 0 {
				t.Errorf("%d withheld and %d delivered advisor entries, want 1 and 0", withheld, delivered)
			}
			if !strings.Contains(st, "Notes: 1 withheld from the agent (advisor.allowPromptInjection is false") {
				t.Errorf("/advisor status does not count the withheld note: %s", st)
			}
			if !strings.Contains(string(adv), "withheld from the agent") {
				t.Error("the advisor's transcript does not say the note was withheld")
			}
		})
	}
}
