package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm"
)

// TestStatsFleetSessions: `vigil stats --fleet` lists the tenant's
// sessions from the usage stream of a real nats-server, the costliest ten
// (every one with --all), each with its reviews, notes, tokens and cost,
// and --json carries them; another tenant's sessions are not listed.
func TestStatsFleetSessions(t *testing.T) {
	isolate(t)
	ns := natstest.Start(t)
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tenant := range []string{"acme", "globex"} {
		if err := fleet.EnsureUsage(ctx, js, tenant, fleet.UsageLimits{Memory: true}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().UTC().Add(-time.Hour)
	// Session sI of acme: two reviews, I+1 notes, costing 0.01*(I+1) in all.
	for i := range 12 {
		for seq := range 2 {
			rec := fleet.UsageRecord{Tenant: "acme", Session: fmt.Sprintf("s%d", i), Seq: uint64(seq + 1), Delivered: 1, Notes: seq * (i + 1),
				Time: t0.Add(time.Duration(i*2+seq) * time.Minute), Models: []fleet.ModelSpend{{Model: "fake/adv", Usage: llm.Usage{Input: 100, Output: 10}, Cost: 0.005 * float64(i+1)}}}
			if err := fleet.PublishUsage(ctx, js, rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := fleet.PublishUsage(ctx, js, fleet.UsageRecord{Tenant: "globex", Session: "secret-session", Seq: 1, Time: t0,
		Models: []fleet.ModelSpend{{Model: "fake/adv", Usage: llm.Usage{Input: 1}, Cost: 9}}}); err != nil {
		t.Fatal(err)
	}

	out, _, err := run(t, "stats", "--fleet", ns.ClientURL(), "--tenant", "acme")
	if err != nil {
		t.Fatalf("stats --fleet: %v", err)
	}
	rows := sessionRows(t, out)
	if len(rows) != 10 || rows[0][0] != "s11" || rows[9][0] != "s2" {
		t.Fatalf("session rows %v, want s11 down to s2:\n%s", rows, out)
	}
	// SESSION, FIRST REVIEW (date time), LAST REVIEW (date time), REVIEWS, NOTES, TOKENS, COST.
	if r := rows[0]; len(r) != 9 || r[5] != "2" || r[6] != "12" || r[7] != "220" || r[8] != "$0.1200" {
		t.Fatalf("row of s11 %q, want 2 reviews, 12 notes, 220 tokens, $0.1200:\n%s", r, out)
	}
	if !strings.Contains(out, "(the 10 costliest of 12 sessions; --all lists every one)") || strings.Contains(out, "secret-session") {
		t.Fatalf("stats --fleet:\n%s", out)
	}

	out, _, err = run(t, "stats", "--fleet", ns.ClientURL(), "--tenant", "acme", "--all")
	if err != nil {
		t.Fatalf("stats --fleet --all: %v", err)
	}
	if rows := sessionRows(t, out); len(rows) != 12 || rows[11][0] != "s0" || strings.Contains(out, "costliest of") {
		t.Fatalf("stats --fleet --all lists %v:\n%s", rows, out)
	}

	out, _, err = run(t, "stats", "--fleet", ns.ClientURL(), "--tenant", "acme", "--json")
	if err != nil {
		t.Fatalf("stats --fleet --json: %v", err)
	}
	var sum fleet.UsageSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("stats --fleet --json: %v\n%s", err, out)
	}
	if sum.Sessions != 12 || len(sum.BySession) != 12 || sum.BySession[0].Session != "s11" || sum.BySession[0].Notes != 12 || sum.BySession[0].Reviews != 2 {
		t.Fatalf("stats --fleet --json by session %+v", sum.BySession)
	}
}

// sessionRows returns the fields of each row of the SESSION table of
// stats --fleet's output.
func sessionRows(t *testing.T, out string) [][]string {
	t.Helper()
	_, table, ok := strings.Cut(out, "\nSESSION")
	if !ok {
		t.Fatalf("no SESSION table:\n%s", out)
	}
	var rows [][]string
	for _, line := range strings.Split(table, "\n")[1:] {
		if line == "" || strings.HasPrefix(line, "(") {
			break
		}
		rows = append(rows, strings.Fields(line))
	}
	return rows
}
