package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/natstest"
)

// natsSecret is the password or token the credential tests put in NATS
// URLs.
const natsSecret = "s3cret-" + "nats-pw-77"

// startNATSAuth runs a nats-server with JetStream that wants user bob
// with the password right, and returns its port.
func startNATSAuth(t *testing.T, right string) int {
	t.Helper()
	opts := natstest.Options(t)
	opts.Username, opts.Password = "bob", right
	ns := natstest.StartWith(t, opts)
	return ns.Addr().(*net.TCPAddr).Port
}

// TestFleetCommandsHideNATSCredentials: vigil serve and vigil stats
// --fleet never print the password or token of a NATS URL: not when no
// server answers, not for a token URL, not for a list of URLs, not when
// the URL does not parse, not when the password is wrong; and the
// errors still say which server.
func TestFleetCommandsHideNATSCredentials(t *testing.T) {
	isolate(t)
	port := startNATSAuth(t, "right-"+"pw-1234")
	urls := map[string]string{
		"password, no server":   "nats://bob:" + natsSecret + "@127.0.0.1:1",
		"token, no server":      "nats://" + natsSecret + "@127.0.0.1:1",
		"a list":                "nats://127.0.0.1:1, nats://bob:" + natsSecret + "@127.0.0.1:1",
		"a port that is no int": "nats://bob:" + natsSecret + "@127.0.0.1:port",
		"a wrong password":      fmt.Sprintf("nats://bob:%s@127.0.0.1:%d", natsSecret, port),
	}
	for what, url := range urls {
		for _, args := range [][]string{{"serve", "--nats", url}, {"stats", "--fleet", url}} {
			out, errOut, err := run(t, args...)
			if err == nil {
				t.Errorf("%s %s: no error", args[0], what)
				continue
			}
			if all := out + errOut + err.Error(); strings.Contains(all, natsSecret) {
				t.Errorf("%s with %s printed the secret: %v\n%s%s", args[0], what, err, out, errOut)
			}
			if !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("%s with %s: %v; want the error to name the server", args[0], what, err)
			}
		}
	}

	// Connected, the line that says where names the server alone.
	right := fmt.Sprintf("nats://bob:%s@127.0.0.1:%d", "right-"+"pw-1234", port)
	nc, err := nats.Connect(right)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fleet.EnsureUsage(ctx, js, "acme", fleet.UsageLimits{Memory: true}); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "stats", "--fleet", right, "--tenant", "acme")
	if want := fmt.Sprintf("fleet nats://127.0.0.1:%d, tenant acme: 0 sessions", port); err != nil || !strings.HasPrefix(out, want) || strings.Contains(out, "right-"+"pw") {
		t.Errorf("stats --fleet, connected: %v\n%s\nwant it to begin %q, without the password", err, out, want)
	}
}

// TestRPCAdvisorFleetDownWarnsInSession: an agent whose fleet is down
// when its session starts says so where the user looks, once: stderr
// and a displayed advisor_warning entry in the session, with the exact
// words, the fleet's URL without its password.
func TestRPCAdvisorFleetDownWarnsInSession(t *testing.T) {
	ns, _ := startFleet(t, true)
	port := ns.Addr().(*net.TCPAddr).Port
	ns.Shutdown()
	ns.WaitForShutdown()
	_, agentDir, work := fakeSetup(t, fleetScript)
	url := fmt.Sprintf("nats://bob:%s@127.0.0.1:%d", natsSecret, port)
	writeProjectConfig(t, work, "advisor:\n  enabled: true\n  fleet:\n    url: "+url+"\n    tenant: acme\n")
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "list the folder"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("idle", isType("idle"))
	file := p.sessionFile()
	p.finish()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	where := fmt.Sprintf("nats://127.0.0.1:%d", port)
	want := "Supervision is not working: the fleet (" + where + ", tenant acme) is not reached: connecting to " + where +
		": nats: no servers available for connection; the session is not reviewed until the fleet answers (vigil tries again). " +
		"Check that the fleet's NATS server runs and that advisor.fleet (url, tenant, creds) points at it; the agent goes on unreviewed meanwhile, and /advisor status counts the steps not published."
	var warnings []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Type       string `json:"type"`
			CustomType string `json:"customType"`
			Display    bool   `json:"display"`
			Content    []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if e.CustomType == "advisor_warning" && len(e.Content) == 1 {
			if !e.Display {
				t.Error("the advisor_warning entry is not displayed")
			}
			warnings = append(warnings, e.Content[0].Text)
		}
	}
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("advisor_warning entries %q, want one:\n%q", warnings, want)
	}
	if strings.Contains(string(data), natsSecret) || strings.Contains(p.stderr.String(), natsSecret) {
		t.Errorf("the fleet URL's password reached the session or stderr:\n%s", p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "vigil: warning: advisor: the fleet ("+where+", tenant acme) is not reached") {
		t.Errorf("stderr lacks the warning:\n%s", p.stderr.String())
	}
}
