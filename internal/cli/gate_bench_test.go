package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

// The models of BenchmarkGateCost, from the built-in catalog's anthropic
// provider (pointed at fakellm), priced at the catalog's list prices.
const (
	gateBenchPrimary = "claude-sonnet-4-6"
	gateBenchAdvisor = "claude-haiku-4-5"
)

// BenchmarkGateCost runs vigil's agent (`vigil -p`) over the same scripted
// run of about 200 steps twice, once with the advisor reviewing every step
// and once with `advisor.gate: rules`, each against a fresh fakellm (which
// simulates the prompt cache), and reports what the advisor's model was
// sent and would cost in each: requests, uncached input, cache reads and
// writes, output tokens, dollars at the catalog's price, and the gated
// run's share of the other's. A minority of the steps signal (a test
// edited right after it failed, a commit with --no-verify, a success
// claimed with nothing run, the same failure twice, a call of a tool that
// does not exist, five edits with nothing run); the rest are quiet work
// (reads, searches, edits followed by a passing test run, commits). The
// advisor answers every review with a short text and no note, so the
// primary's requests are the same in both runs. The tokens are
// deterministic: the same in every iteration. See docs/benchmarks.md, "The
// gate's cost".
func BenchmarkGateCost(b *testing.B) {
	for _, tool := range []string{"python3", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("the scripted run needs %s: %v", tool, err)
		}
	}
	price := map[string]llm.Price{gateBenchPrimary: catalogPrice(b, gateBenchPrimary), gateBenchAdvisor: catalogPrice(b, gateBenchAdvisor)}
	var every, gated gateBenchRun
	for i := range b.N {
		e := runGateBench(b, false)
		g := runGateBench(b, true)
		if i > 0 && (e.advisor != every.advisor || g.advisor != gated.advisor || e.reviews != every.reviews || g.reviews != gated.reviews) {
			b.Fatalf("iteration %d measured other tokens than the first:\nevery step %+v, was %+v\ngated %+v, was %+v", i+1, e, every, g, gated)
		}
		every, gated = e, g
	}
	b.StopTimer()
	if every.primary != gated.primary || every.steps != gated.steps {
		b.Fatalf("the primary's run differs between the two configurations: %d steps %+v, gated %d steps %+v", every.steps, every.primary, gated.steps, gated.primary)
	}
	if every.reviews < every.steps {
		b.Fatalf("the advisor reviewing every step made %d requests for %d steps: a sync wait timed out, or reviews were batched", every.reviews, every.steps)
	}
	if gated.reviews == 0 || gated.reviews >= every.reviews {
		b.Fatalf("the gated advisor made %d requests, the ungated %d", gated.reviews, every.reviews)
	}
	costE := price[gateBenchAdvisor].Cost(every.advisor)
	costG := price[gateBenchAdvisor].Cost(gated.advisor)
	costP := price[gateBenchPrimary].Cost(every.primary)
	for _, r := range []struct {
		name string
		run  gateBenchRun
		cost float64
	}{{"every", every, costE}, {"gated", gated, costG}} {
		b.ReportMetric(float64(r.run.reviews), r.name+"-reqs")
		b.ReportMetric(float64(r.run.advisor.Input), r.name+"-in-tok")
		b.ReportMetric(float64(r.run.advisor.CacheRead), r.name+"-cache-read-tok")
		b.ReportMetric(float64(r.run.advisor.CacheWrite), r.name+"-cache-write-tok")
		b.ReportMetric(float64(r.run.advisor.Output), r.name+"-out-tok")
		b.ReportMetric(r.cost, r.name+"-USD")
	}
	b.ReportMetric(costG/costE, "gated/every-cost")
	b.ReportMetric(float64(every.steps), "steps")
	b.ReportMetric(costP, "agent-USD")

	b.Logf("%d primary steps on %s (%d input, %d cache read, %d cache write, %d output tokens: $%.4f)",
		every.steps, gateBenchPrimary, every.primary.Input, every.primary.CacheRead, every.primary.CacheWrite, every.primary.Output, costP)
	b.Logf("advisor on %s       %10s %10s %12s %12s %8s %9s %14s", gateBenchAdvisor, "requests", "input", "cache read", "cache write", "output", "cost", "share of agent")
	for _, r := range []struct {
		name string
		run  gateBenchRun
		cost float64
	}{{"every step      ", every, costE}, {"gate: rules     ", gated, costG}} {
		u := r.run.advisor
		b.Logf("%s              %10d %10d %12d %12d %8d %9s %13.1f%%", r.name, r.run.reviews, u.Input, u.CacheRead, u.CacheWrite, u.Output, fmt.Sprintf("$%.4f", r.cost), 100*r.cost/costP)
	}
	ratio := func(g, e int64) string {
		if e == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", float64(g)/float64(e))
	}
	b.Logf("gated / every step              %10s %10s %12s %12s %8s %9.3f", ratio(int64(gated.reviews), int64(every.reviews)), ratio(gated.advisor.Input, every.advisor.Input),
		ratio(gated.advisor.CacheRead, every.advisor.CacheRead), ratio(gated.advisor.CacheWrite, every.advisor.CacheWrite), ratio(gated.advisor.Output, every.advisor.Output), costG/costE)
	b.Logf("the gate woke the model %d times; signals and findings named in those reviews: %s", gated.reviews, gated.woke)
}

// gateBenchGitEnv makes the scripted run's commits the same in every run.
var gateBenchGitEnv = []string{"GIT_AUTHOR_DATE=2026-11-30T10:00:00Z", "GIT_COMMITTER_DATE=2026-11-30T10:00:00Z"}

// gateBenchRoot makes a folder for one run whose path has the same length
// in every run (b.TempDir's does not), since the path shows in the
// primary's tool results (tracebacks) and so in the tokens counted.
func gateBenchRoot(b *testing.B) string {
	b.Helper()
	for range 100 {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("vigil-gatebench-%010d", rand.Uint32()))
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			b.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
		if !errors.Is(err, fs.ErrExist) {
			b.Fatal(err)
		}
	}
	b.Fatal("no free name for the benchmark's folder in 100 tries")
	return ""
}

// catalogPrice is the built-in catalog's price of an anthropic model.
func catalogPrice(b *testing.B, id string) llm.Price {
	b.Helper()
	p := models.Catalog().Providers["anthropic"]
	if p == nil {
		b.Fatal("the built-in catalog has no anthropic provider")
	}
	for _, m := range p.Models {
		if m.ID == id && m.Cost != nil {
			return *m.Cost
		}
	}
	b.Fatalf("the built-in catalog has no price for anthropic/%s", id)
	return llm.Price{}
}

// gateBenchRun is what one run of BenchmarkGateCost measured.
type gateBenchRun struct {
	steps   int // the primary's replies that called a tool
	reviews int // requests to the advisor's model
	primary llm.Usage
	advisor llm.Usage
	woke    string // the kinds named under the reviews' "### Signals" and findings, counted
}

// runGateBench runs the scripted session once with a fresh fakellm and
// folders, the advisor gated by the rules or reviewing every step, and
// sums fakellm's usage by model.
func runGateBench(b *testing.B, gated bool) gateBenchRun {
	b.Helper()
	root := gateBenchRoot(b)
	agentDir, work := filepath.Join(root, "agent"), filepath.Join(root, "work")
	project := newGateBenchProject()
	steps := project.script()
	for _, d := range []string{agentDir, filepath.Join(work, ".vigil")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for name, text := range project.initial {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "dev@example.com"}, {"config", "user.name", "Dev"},
		{"config", "commit.gpgsign", "false"}, {"add", "-A"}, {"commit", "-q", "-m", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), gateBenchGitEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if _, err := config.Trust(agentDir, work, false); err != nil {
		b.Fatal(err)
	}

	script := &fakellm.Script{Rules: []fakellm.Rule{
		{Name: "primary", Model: gateBenchPrimary, Steps: append(steps, fakellm.Step{Text: "Done: every module has its new helpers and tests, and the suite passes."})},
		{Name: "advisor", Model: gateBenchAdvisor, Repeat: true, Steps: []fakellm.Step{{Text: "No note: the agent is on course."}}},
	}}
	srv := fakellm.StartTest(b, script)
	yml := fmt.Sprintf("providers:\n  anthropic:\n    baseUrl: %s\n    auth: none\n", srv.URL())
	if err := os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(yml), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 600\n"
	if gated {
		cfg += "  gate: rules\n"
	}
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := vigilCommand(agentDir, work, "-m", "anthropic/"+gateBenchPrimary, "--advisor-model", "anthropic/"+gateBenchAdvisor,
		"-p", "Add the helpers and tests listed in TODO.md to every module of app/, committing as you go.")
	// Commits made at a fixed time have the same ids in every run.
	cmd.Env = append(cmd.Env, gateBenchGitEnv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		b.Fatalf("vigil: %v\n%.2000s\n%s", err, out, stderr.String())
	}

	run := gateBenchRun{steps: len(steps)}
	kinds := map[string]int{}
	for _, r := range srv.Requests() {
		if r.Status != 200 {
			b.Fatalf("fakellm answered a request to %s with %d:\n%s", r.Model, r.Status, stderr.String())
		}
		u := llm.Usage{Input: int64(r.Usage.Input), Output: int64(r.Usage.Output), CacheRead: int64(r.Usage.CacheRead), CacheWrite: int64(r.Usage.CacheWrite)}
		switch r.Model {
		case gateBenchPrimary:
			run.primary = run.primary.Add(u)
		case gateBenchAdvisor:
			run.advisor = run.advisor.Add(u)
			run.reviews++
			if gated {
				for _, k := range wokeBy(b, r.Body) {
					kinds[k]++
				}
			}
		default:
			b.Fatalf("a request to an unexpected model %q", r.Model)
		}
	}
	names := make([]string, 0, len(kinds))
	for k, n := range kinds {
		names = append(names, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(names)
	run.woke = strings.Join(names, ", ")
	return run
}

// signalLine is a line of an update's "### Signals" section.
var signalLine = regexp.MustCompile(`(?m)^- step [0-9]+ ([a-z-]+):`)

// wokeBy lists what woke the model for the update a review request ends
// with (its last message): each signal's kind, and "finding" for the
// update's detector findings.
func wokeBy(b *testing.B, body []byte) []string {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		b.Fatalf("a review request with no messages (%v): %.300s", err, body)
	}
	var text string
	last := req.Messages[len(req.Messages)-1].Content
	if err := json.Unmarshal(last, &text); err != nil {
		var blocks []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(last, &blocks); err != nil {
			b.Fatalf("a review request's last message: %v", err)
		}
		for _, bl := range blocks {
			text += bl.Text
		}
	}
	var out []string
	if strings.Contains(text, "### Detector findings") {
		out = append(out, "finding")
	}
	_, sigs, _ := strings.Cut(text, "### Signals")
	for _, m := range signalLine.FindAllStringSubmatch(sigs, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}
