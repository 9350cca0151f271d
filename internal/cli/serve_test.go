package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/internal/cli"
	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// failingStep is one `ls /missing` call and its failed result.
func failingStep(i int) []session.Entry {
	id := fmt.Sprintf("c%d", i)
	args, _ := json.Marshal(map[string]string{"command": "ls /missing"})
	return []session.Entry{
		{ID: "a" + id, Time: time.Unix(1, 0).UTC(), Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: id, Name: "bash", Arguments: args}}}}},
		{ID: "r" + id, ParentID: "a" + id, Time: time.Unix(1, 0).UTC(), Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, true, llm.Text("ls: cannot access '/missing': No such file or directory\n[exit code 2]"))}}}},
	}
}

// TestServeReviewsAndExposesMetrics runs `vigil serve` against a real
// nats-server in process: a session's failing steps get the rules
// reviewer's note back, and /healthz and /metrics say so.
func TestServeReviewsAndExposesMetrics(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	defer func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	}()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, outw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"serve", "--nats", ns.ClientURL(), "--tenant", "acme", "--listen", "127.0.0.1:0"}, strings.NewReader(""), outw, io.Discard)
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
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}

	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	// The tenant's streams, as the worker sets them up (the same config),
	// so that the client can subscribe before the worker has started.
	if _, err := fleet.Ensure(ctx, js, "acme", fleet.Limits{}); err != nil {
		t.Fatal(err)
	}
	c, err := fleet.NewClient(ctx, nc, fleet.ClientOptions{Tenant: "acme", Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
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
	_, metrics := get("/metrics")
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
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
