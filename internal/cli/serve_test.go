package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/internal/cli"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// failingStep is one `ls /missing` call and its failed result.
func failingStep(i int) []session.Entry {
	return bashStep(i, "ls /missing", "ls: cannot access '/missing': No such file or directory\n[exit code 2]", true)
}

// bashStep is one bash call of command and its result out.
func bashStep(i int, command, out string, failed bool) []session.Entry {
	id := fmt.Sprintf("c%d", i)
	args, _ := json.Marshal(map[string]string{"command": command})
	return []session.Entry{
		{ID: "a" + id, Time: time.Unix(1, 0).UTC(), Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: id, Name: "bash", Arguments: args}}}}},
		{ID: "r" + id, ParentID: "a" + id, Time: time.Unix(1, 0).UTC(), Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, failed, llm.Text(out))}}}},
	}
}

// startServe runs `vigil serve args --listen 127.0.0.1:0` until ctx ends
// and returns the base URL of its /healthz and /metrics, and what Run
// returned once it has.
func startServe(t *testing.T, ctx context.Context, args ...string) (string, <-chan error) {
	t.Helper()
	out, outw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, append(append([]string{"serve"}, args...), "--listen", "127.0.0.1:0"), strings.NewReader(""), outw, io.Discard)
		outw.Close()
	}()
	lines := bufio.NewScanner(out)
	var base string
	for base == "" && lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "vigil serve: health and metrics on "); ok {
			base = rest
		}
	}
	if base == "" {
		t.Fatalf("serve printed no address (%v)", <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return base, done
}

// get fetches base+path.
func get(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// fleetClient connects an agent's side to tenant's session sess, the
// tenant's streams set up as the worker sets them up, so that it can
// subscribe before the worker has started.
func fleetClient(t *testing.T, ctx context.Context, ns *server.Server, tenant, sess string) (*nats.Conn, *fleet.Client) {
	t.Helper()
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	if _, err := fleet.Ensure(ctx, js, tenant, fleet.Limits{}); err != nil {
		t.Fatal(err)
	}
	c, err := fleet.NewClient(ctx, nc, fleet.ClientOptions{Tenant: tenant, Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return nc, c
}

// TestServeReviewsAndExposesMetrics runs `vigil serve` against a real
// nats-server in process: a session's failing steps get the rules
// reviewer's note back, and /healthz and /metrics say so.
func TestServeReviewsAndExposesMetrics(t *testing.T) {
	isolate(t)
	ns := natstest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, done := startServe(t, ctx, "--nats", ns.ClientURL(), "--tenant", "acme")
	if code, body := get(t, base, "/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	_, c := fleetClient(t, ctx, ns, "acme", "s1")
	for i := 1; i <= 8; i++ {
		if _, err := c.Publish(ctx, failingStep(i)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case n := <-c.Notes():
		if n.Advice.Note == "" || n.Tenant != "acme" {
			t.Fatalf("note %+v", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no note from vigil serve within 30s")
	}
	// The note may arrive before the worker counts it: a review's last
	// message, after its notes are counted, says it is done.
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := c.WaitBacklogBelow(wctx, 1); err != nil {
		t.Fatalf("the reviews did not end: %v", err)
	}
	_, metrics := get(t, base, "/metrics")
	for _, want := range []string{
		`vigil_fleet_sessions{tenant="acme"} 1`,
		`vigil_fleet_notes_total{tenant="acme"}`,
		`vigil_fleet_review_latency_seconds_count{tenant="acme"}`,
		`vigil_fleet_steps_total{tenant="acme"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, metrics)
		}
	}
	if strings.Contains(metrics, `vigil_fleet_notes_total{tenant="acme"} 0`) {
		t.Errorf("/metrics counts no note:\n%s", metrics)
	}
	if strings.Contains(metrics, "vigil_fleet_tokens_total{") {
		t.Errorf("the rules reviewer counts tokens:\n%s", metrics)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// metricValue is the value of the sample of metric whose labels include
// every one of labels, or -1 when there is none.
func metricValue(t *testing.T, metrics, metric string, labels ...string) float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(metric) + `\{([^}]*)\} (\S+)$`)
	for _, m := range re.FindAllStringSubmatch(metrics, -1) {
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(","+m[1]+",", ","+l+",")
		}
		if ok {
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	return -1
}

// TestServeModelReviewer runs `vigil serve --reviewer model` with the
// advisor model of the user's settings on fakellm: the model's note comes
// back, the secret a step printed never reaches the model, /metrics
// counts the review's tokens and cost for the tenant and the model, and
// `vigil stats --fleet` reads the same from the tenant's usage stream.
func TestServeModelReviewer(t *testing.T) {
	const secret = "deploy-" + "fleet-7f3a-live"
	t.Setenv("FLEET_DEPLOY_TOKEN", secret)
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - steps:
      - tool_calls:
          - name: advise
            arguments: {note: "Run the tests before committing.", severity: concern}
`))
	agentDir := isolate(t)
	yml := fmt.Sprintf("providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: adv, contextWindow: 200000, maxTokens: 4096, cost: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}}\n", srv.URL())
	if err := os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "config.yml"), []byte("modelRoles:\n  advisor: fake/adv\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ns := natstest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, done := startServe(t, ctx, "--nats", ns.ClientURL(), "--tenant", "acme", "--reviewer", "model")
	nc, c := fleetClient(t, ctx, ns, "acme", "s1")
	// The usage record is published after the metrics count the review.
	usage, err := nc.SubscribeSync(fleet.UsageSubject("acme", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, bashStep(1, "git commit -am wip; echo $FLEET_DEPLOY_TOKEN", "[main 1a2b3c] wip\n"+secret, false)); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-c.Notes():
		if n.Advice.Note != "Run the tests before committing." || n.Kind != fleet.KindSteer {
			t.Fatalf("note %+v", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no note from vigil serve within 30s")
	}
	m, err := usage.NextMsg(30 * time.Second)
	if err != nil {
		t.Fatalf("no usage record: %v", err)
	}
	var rec fleet.UsageRecord
	if err := json.Unmarshal(m.Data, &rec); err != nil || rec.Session != "s1" || rec.Seq != 1 || len(rec.Models) != 1 || rec.Models[0].Model != "fake/adv" || rec.Models[0].Cost <= 0 || rec.Notes != 1 {
		t.Fatalf("usage record %s (%v): want the review's model spend and its one note", m.Data, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Errorf("%d model requests, want 1 (advise, which ends the review)", len(reqs))
	}
	for _, r := range reqs {
		if strings.Contains(string(r.Body), secret) {
			t.Fatalf("the model was sent the secret: %s", r.Body)
		}
		var body struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if len(body.Tools) != 1 || body.Tools[0].Name != "advise" {
			t.Errorf("the advisor was offered %+v, want the advise tool alone (no workspace)", body.Tools)
		}
	}
	if !strings.Contains(string(reqs[0].Body), "git commit -am wip") || !strings.Contains(string(reqs[0].Body), "[main 1a2b3c] wip") {
		t.Fatalf("the model was not sent the step and its output: %s", reqs[0].Body)
	}

	_, metrics := get(t, base, "/metrics")
	u := rec.Models[0].Usage
	if u.Output == 0 || u.PromptTokens() == 0 {
		t.Fatalf("usage %+v: fakellm reported no tokens", u)
	}
	for kind, want := range map[string]int64{"input": u.Input, "output": u.Output, "cache_read": u.CacheRead, "cache_write": u.CacheWrite} {
		got := metricValue(t, metrics, "vigil_fleet_tokens_total", `tenant="acme"`, `model="fake/adv"`, `kind="`+kind+`"`)
		if got != float64(want) {
			t.Errorf("vigil_fleet_tokens_total kind %s = %v, want %d:\n%s", kind, got, want, metrics)
		}
	}
	wantCost := (float64(u.Input)*3 + float64(u.Output)*15 + float64(u.CacheRead)*0.3 + float64(u.CacheWrite)*3.75) / 1e6
	if got := metricValue(t, metrics, "vigil_fleet_cost_usd_total", `tenant="acme"`, `model="fake/adv"`); got < wantCost*0.999 || got > wantCost*1.001 {
		t.Errorf("vigil_fleet_cost_usd_total = %v, want %v:\n%s", got, wantCost, metrics)
	}

	out, _, err := run(t, "stats", "--fleet", ns.ClientURL(), "--tenant", "acme")
	if err != nil {
		t.Fatalf("stats --fleet: %v", err)
	}
	for _, want := range []string{"tenant acme: 1 session, 1 review", "fake/adv", fmt.Sprintf("$%.4f", wantCost)} {
		if !strings.Contains(out, want) {
			t.Errorf("stats --fleet lacks %q:\n%s", want, out)
		}
	}
	out, _, err = run(t, "stats", "--fleet", ns.ClientURL(), "--tenant", "acme", "--json")
	var sum fleet.UsageSummary
	if err != nil || json.Unmarshal([]byte(out), &sum) != nil || sum.Sessions != 1 || sum.Reviews != 1 || sum.Usage != u {
		t.Errorf("stats --fleet --json: %v\n%s", err, out)
	}
	out, _, err = run(t, "stats", "--fleet", ns.ClientURL(), "--tenant", "acme", "--since", "2999-01-01")
	if err != nil || !strings.Contains(out, "0 sessions, 0 reviews") {
		t.Errorf("stats --fleet --since the future: %v\n%s", err, out)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestServeModelReviewerNeedsAModel: with no advisor model, `vigil serve
// --reviewer model` says so before it connects to anything.
func TestServeModelReviewerNeedsAModel(t *testing.T) {
	isolate(t)
	// Nothing listens there: an attempt to connect would be the error.
	_, _, err := run(t, "serve", "--nats", "nats://127.0.0.1:1", "--reviewer", "model")
	if err == nil || !strings.Contains(err.Error(), "no advisor model") || !strings.Contains(err.Error(), "modelRoles.advisor") || strings.Contains(err.Error(), "connecting") {
		t.Fatalf("serve --reviewer model with no model: %v", err)
	}
	_, _, err = run(t, "serve", "--nats", "nats://127.0.0.1:1", "--reviewer", "model", "--model", "nosuch/model")
	if err == nil || !strings.Contains(err.Error(), "nosuch/model") || strings.Contains(err.Error(), "connecting") {
		t.Fatalf("serve --model nosuch/model: %v", err)
	}
	_, _, err = run(t, "serve", "--nats", "nats://127.0.0.1:1", "--model", "fake/adv")
	if err == nil || !strings.Contains(err.Error(), "--reviewer model") {
		t.Fatalf("serve --model with the rules reviewer: %v", err)
	}
}

// TestStatsFleetErrors: stats --fleet against no server fails
// with the address, and --project does not go with it.
func TestStatsFleetErrors(t *testing.T) {
	isolate(t)
	if _, _, err := run(t, "stats", "--fleet", "nats://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("stats --fleet with no server: %v", err)
	}
	if _, _, err := run(t, "stats", "--fleet", "nats://127.0.0.1:1", "--project", "x"); err == nil || !strings.Contains(err.Error(), "--project") {
		t.Fatalf("stats --fleet --project: %v", err)
	}
}

// TestServePeriodicReviewer runs `vigil serve --reviewer periodic` with
// the advisor model of the user's settings on fakellm and a review every
// two tool calls: no fork after the first step, one after the second
// (the steps rendered, the secret a step printed redacted), and its
// correction comes back as the second step's steer.
func TestServePeriodicReviewer(t *testing.T) {
	const secret = "deploy-" + "fleet-9c2e-live"
	t.Setenv("FLEET_DEPLOY_TOKEN", secret)
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - steps:
      - text: "CORRECTION\nRun the tests before committing."
`))
	agentDir := isolate(t)
	yml := fmt.Sprintf("providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: adv, contextWindow: 200000, maxTokens: 4096}\n", srv.URL())
	if err := os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "modelRoles:\n  advisor: fake/adv\nadvisor:\n  periodic:\n    everyToolCalls: 2\n    everyMinutes: 0\n"
	if err := os.WriteFile(filepath.Join(agentDir, "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ns := natstest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, done := startServe(t, ctx, "--nats", ns.ClientURL(), "--tenant", "acme", "--reviewer", "periodic")
	_, c := fleetClient(t, ctx, ns, "acme", "s1")
	if _, err := c.Publish(ctx, bashStep(1, "echo $FLEET_DEPLOY_TOKEN", secret, false)); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := c.WaitBacklogBelow(wctx, 1); err != nil {
		t.Fatalf("step 1's review: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d forks after one tool call, want none", n)
	}
	if _, err := c.Publish(ctx, bashStep(2, "git commit -am wip", "[main 1a2b3c] wip", false)); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-c.Notes():
		if n.Advice.Note != "Run the tests before committing." || n.Kind != fleet.KindSteer || n.Seq != 2 {
			t.Fatalf("note %+v, want step 2's steer", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no note from vigil serve within 30s")
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d forks, want 1", len(reqs))
	}
	body := string(reqs[0].Body)
	if strings.Contains(body, secret) {
		t.Fatalf("the fork was sent the secret: %s", body)
	}
	if !strings.Contains(body, "echo $FLEET_DEPLOY_TOKEN") || !strings.Contains(body, "git commit -am wip") || !strings.Contains(body, "NO_CHANGE") {
		t.Fatalf("the fork lacks the steps or the review prompt: %s", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestServePeriodicReviewerNeedsATrigger: with both periodic triggers 0,
// `vigil serve --reviewer periodic` says so before it connects.
func TestServePeriodicReviewerNeedsATrigger(t *testing.T) {
	agentDir := isolate(t)
	yml := "providers:\n  fake:\n    baseUrl: http://127.0.0.1:1\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: adv, contextWindow: 200000, maxTokens: 4096}\n"
	if err := os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "modelRoles:\n  advisor: fake/adv\nadvisor:\n  periodic:\n    everyToolCalls: 0\n    everyMinutes: 0\n"
	if err := os.WriteFile(filepath.Join(agentDir, "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "serve", "--nats", "nats://127.0.0.1:1", "--reviewer", "periodic")
	if err == nil || !strings.Contains(err.Error(), "both 0") {
		t.Fatalf("serve --reviewer periodic with no trigger: %v", err)
	}
	_, _, err = run(t, "serve", "--nats", "nats://127.0.0.1:1", "--reviewer", "periodic", "--gate", "rules")
	if err == nil || !strings.Contains(err.Error(), "--gate") {
		t.Fatalf("serve --reviewer periodic --gate: %v", err)
	}
}
