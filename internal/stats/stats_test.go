package stats_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/stats"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// clock hands out times a minute apart from a fixed start.
type clock struct{ t time.Time }

func (c *clock) now() time.Time {
	c.t = c.t.Add(time.Minute)
	return c.t
}

// sessionOf fails the test on an error making a session.
func sessionOf(t *testing.T) func(*session.Session, error) *session.Session {
	return func(s *session.Session, err error) *session.Session {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func appendAll(t *testing.T, s *session.Session, bodies ...session.Body) {
	t.Helper()
	for _, b := range bodies {
		if _, err := s.Append(b); err != nil {
			t.Fatal(err)
		}
	}
}

func user(text string) session.Body { return &session.Message{Message: llm.UserText(text)} }

func toolResult(id string) session.Body {
	return &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: id, Content: []llm.Block{llm.Text("ok")}}}}}
}

func reply(model string, u llm.Usage) session.Body {
	ref, _ := llm.ParseRef(model)
	return &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("done")}}, Model: ref, Usage: u}
}

func update(text string) session.Body {
	return &session.Custom{CustomType: "advisor_update", Content: []llm.Block{llm.Text(text)}, InContext: true}
}

// prices is a price list: $1/M input, $10/M output, $0.1/M cache read,
// $2/M cache write for fake/m; fake/adv at $3/M in and out.
func prices(ref llm.Ref) (llm.Price, bool) {
	switch ref.String() {
	case "fake/m":
		return llm.Price{Input: 1, Output: 10, CacheRead: 0.1, CacheWrite: 2}, true
	case "fake/adv":
		return llm.Price{Input: 3, Output: 3}, true
	}
	return llm.Price{}, false
}

type tree struct {
	root, main, sub, adv, fork, other, torn, bad string
}

// buildTree writes a sessions root: a session in /w/app with a subagent,
// an advisor transcript and a fork; a session in /w/lib with an unpriced
// model; a torn session and a file that is not a session.
func buildTree(t *testing.T) tree {
	t.Helper()
	root := t.TempDir()
	c := &clock{t: time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)}
	opts := session.Options{Now: c.now}
	m := session.NewManager(root, opts)
	must := sessionOf(t)

	main := must(m.New("/w/app"))
	appendAll(t, main,
		user("fix the parser"),
		reply("fake/m:high", llm.Usage{Input: 1000, Output: 100, CacheRead: 10000, CacheWrite: 500}),
		toolResult("c1"),
		reply("fake/m", llm.Usage{Input: 200, Output: 50}),
		&session.Custom{CustomType: "advisor", Content: []llm.Block{llm.Text("a card")}, Display: true, InContext: true},
		user("now the lexer"),
		reply("fake/m", llm.Usage{Input: 300, Output: 30}),
	)
	sub := must(main.NewChild("task-1"))
	appendAll(t, sub, user("CHILD task prompt"), reply("fake/m", llm.Usage{Input: 400, Output: 40}), toolResult("c2"), reply("fake/m", llm.Usage{Input: 10, Output: 1}))
	subAdv := must(session.Create(filepath.Join(sub.ArtifactsDir(), session.AdvisorTranscript), session.Header{
		ID: "advisor-task-1", Cwd: sub.Header().Cwd,
		Parent: &session.Parent{Kind: session.ParentAdvisor, ID: sub.ID(), Path: sub.File()},
	}, opts))
	appendAll(t, subAdv, update("### Session update 1"), reply("fake/adv", llm.Usage{Input: 100, Output: 1}))
	subAdv.Close()
	sub.Close()
	adv := must(session.Create(filepath.Join(main.ArtifactsDir(), session.AdvisorTranscript), session.Header{
		ID: "advisor-" + main.ID(), Cwd: main.Header().Cwd,
		Parent: &session.Parent{Kind: session.ParentAdvisor, ID: main.ID(), Path: main.File()},
	}, opts))
	appendAll(t, adv,
		update("### Session update 1"), reply("fake/adv", llm.Usage{Input: 1000, Output: 100}), toolResult("a1"), reply("fake/adv", llm.Usage{Input: 50, Output: 5}),
		update("### Session update 2"), reply("fake/adv", llm.Usage{Input: 2000, Output: 200}),
		// Its memory after a compaction is no review; a periodic review is.
		&session.Custom{CustomType: "advisor_memory", Content: []llm.Block{llm.Text("memory")}, InContext: true},
		&session.Custom{CustomType: "advisor_review", Content: []llm.Block{llm.Text("review the last steps")}, InContext: true},
		// A question of the agent is no review: it is counted apart.
		&session.Custom{CustomType: "advisor_consult", Content: []llm.Block{llm.Text("### Consult\n\nshould I?")}, InContext: true},
	)
	adv.Close()
	leaf := main.Leaf()
	fork := must(m.Fork(main, leaf))
	appendAll(t, fork, user("forked question"), reply("fake/m", llm.Usage{Input: 7, Output: 3}))
	fork.Close()
	main.Close()

	other := must(m.New("/w/lib"))
	appendAll(t, other, user("hello"), reply("local/free", llm.Usage{Input: 5, Output: 5}))
	other.Close()

	torn := must(m.New("/w/app"))
	appendAll(t, torn, user("torn one"), reply("fake/m", llm.Usage{Input: 100, Output: 10}))
	torn.Close()
	f, err := os.OpenFile(torn.File(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","id":"dead","parentId":null,"times`)
	f.Close()

	bad := filepath.Join(root, session.Slug("/w/app"), "2026-01-01T00-00-00.000Z_0000000000000bad.jsonl")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return tree{root: root, main: main.File(), sub: sub.File(), adv: adv.File(), fork: fork.File(), other: other.File(), torn: torn.File(), bad: bad}
}

func find[T any](t *testing.T, xs []T, what string, match func(T) bool) T {
	t.Helper()
	for _, x := range xs {
		if match(x) {
			return x
		}
	}
	var zero T
	t.Fatalf("no %s in %+v", what, xs)
	return zero
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestScanAttributesRolesPromptsAndCost(t *testing.T) {
	tr := buildTree(t)
	r, err := stats.Scan(tr.root, stats.Options{Price: prices})
	if err != nil {
		t.Fatal(err)
	}
	main := find(t, r.Sessions, "main session", func(s stats.Session) bool { return s.File == tr.main })
	// Two typed prompts: not the tool result, not the advisor card, not
	// the subagent's task prompt, not the advisor's updates.
	if main.Prompts != 2 {
		t.Errorf("main prompts = %d, want 2", main.Prompts)
	}
	if main.Primary.Turns != 3 || main.Turns != 3+2+3+1 {
		t.Errorf("main turns: primary %d, total %d; want 3 and 9", main.Primary.Turns, main.Turns)
	}
	wantPrimary := (1000*1+100*10+10000*0.1+500*2)/1e6 + (200+500)/1e6 + (300+300)/1e6
	wantSub := (400+400)/1e6 + (10+10)/1e6
	wantAdv := (3000+300)/1e6 + (150+15)/1e6 + (6000+600)/1e6
	wantSubAdv := (300 + 3) / 1e6
	if !near(main.Primary.Cost, wantPrimary) || !near(main.Cost, wantPrimary+wantSub+wantAdv+wantSubAdv) {
		t.Errorf("main cost: primary %g, total %g; want %g and %g", main.Primary.Cost, main.Cost, wantPrimary, wantPrimary+wantSub+wantAdv+wantSubAdv)
	}
	if len(main.Subagents) != 1 || main.Subagents[0].ID != "task-1" || main.Subagents[0].Turns != 2 || main.Subagents[0].Role != stats.RoleSubagent {
		t.Errorf("subagents = %+v", main.Subagents)
	}
	// The session's advisor, then (in path order) the subagent's own.
	if len(main.Advisors) != 2 || main.Advisors[1].Parent != "task-1" || main.Advisors[1].Reviews != 1 || !main.Advisors[1].ReadOnly {
		t.Fatalf("advisors = %+v", main.Advisors)
	}
	adv := main.Advisors[0]
	if !adv.ReadOnly || adv.Reviews != 3 || adv.Consults != 1 || adv.Turns != 3 || adv.Tokens.Input != 3050 || adv.Parent != main.ID || adv.Role != stats.RoleAdvisor {
		t.Errorf("advisor = %+v", adv)
	}

	// The fork counts only what it added.
	fork := find(t, r.Sessions, "fork", func(s stats.Session) bool { return s.File == tr.fork })
	if fork.Prompts != 1 || fork.Turns != 1 || fork.Tokens.Input != 7 {
		t.Errorf("fork = %+v, want only its own prompt and turn", fork)
	}

	// Roles add up across sessions.
	roles := map[stats.Role]stats.RoleUsage{}
	for _, ru := range r.Roles {
		roles[ru.Role] = ru
	}
	if roles[stats.RoleAdvisor].Files != 2 || roles[stats.RoleAdvisor].Turns != 4 || !near(roles[stats.RoleAdvisor].Cost, wantAdv+wantSubAdv) {
		t.Errorf("advisor role = %+v", roles[stats.RoleAdvisor])
	}
	if roles[stats.RoleSubagent].Files != 1 || roles[stats.RoleSubagent].Turns != 2 {
		t.Errorf("subagent role = %+v", roles[stats.RoleSubagent])
	}
	// main 3, fork 1, other 1, torn 1.
	if roles[stats.RolePrimary].Files != 4 || roles[stats.RolePrimary].Turns != 6 {
		t.Errorf("primary role = %+v", roles[stats.RolePrimary])
	}

	// Models drop the thinking level; an unknown one is unpriced.
	m := find(t, r.Models, "fake/m", func(m stats.Model) bool { return m.Model == "fake/m" })
	if !m.Priced || m.Turns != 3+2+1+1 {
		t.Errorf("fake/m = %+v", m)
	}
	free := find(t, r.Models, "local/free", func(m stats.Model) bool { return m.Model == "local/free" })
	if free.Priced || free.Cost != 0 || free.Unpriced != 1 || free.Tokens.Total() != 10 {
		t.Errorf("local/free = %+v", free)
	}

	// Projects: /w/app holds main, fork and torn.
	app := find(t, r.Projects, "/w/app", func(p stats.Project) bool { return p.Cwd == "/w/app" })
	if app.Sessions != 3 || app.Prompts != 2+1+1 {
		t.Errorf("project /w/app = %+v", app)
	}
	if r.Totals.Sessions != 4 || r.Totals.Files != 7 || r.Totals.Prompts != 5 {
		t.Errorf("totals = %+v", r.Totals)
	}

	// The torn file counts for what was read; the bad one for nothing.
	torn := find(t, r.Sessions, "torn session", func(s stats.Session) bool { return s.File == tr.torn })
	if torn.Turns != 1 {
		t.Errorf("torn session = %+v", torn)
	}
	kinds := map[string]string{}
	for _, p := range r.Problems {
		kinds[p.File] = p.Kind
	}
	if kinds[tr.torn] != stats.ProblemTorn || kinds[tr.bad] != stats.ProblemUnreadable || len(kinds) != 2 {
		t.Errorf("problems = %+v", r.Problems)
	}
	if r.Sessions[0].File != tr.main {
		t.Errorf("first session = %s, want the costliest, %s", r.Sessions[0].File, tr.main)
	}
}

func TestScanFilters(t *testing.T) {
	tr := buildTree(t)
	r, err := stats.Scan(tr.root, stats.Options{Price: prices, Project: "lib"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sessions) != 1 || r.Sessions[0].File != tr.other {
		t.Errorf("--project lib kept %+v", r.Sessions)
	}
	for _, p := range r.Problems {
		if p.File == tr.torn {
			t.Errorf("a torn file of another project is reported: %+v", p)
		}
	}

	r, err = stats.Scan(tr.root, stats.Options{Cwd: "/w/app/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sessions) != 3 || r.Cwd != "/w/app" {
		t.Errorf("cwd /w/app: %d sessions, cwd %q", len(r.Sessions), r.Cwd)
	}

	// Since the other project's session: only what came after it.
	_, entries, _ := session.ReadFile(tr.other)
	since := entries[0].Time
	r, err = stats.Scan(tr.root, stats.Options{Since: since})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Sessions {
		if s.File == tr.main || s.File == tr.fork {
			t.Errorf("session %s has nothing since %v but is kept: %+v", s.File, since, s)
		}
	}
	if r.Totals.Sessions != 2 || r.Totals.Prompts != 2 {
		t.Errorf("since totals = %+v, want the lib session and the torn one", r.Totals)
	}
}

func TestScanMissingRootAndOrphans(t *testing.T) {
	r, err := stats.Scan(filepath.Join(t.TempDir(), "none"), stats.Options{})
	if err != nil || len(r.Sessions) != 0 {
		t.Fatalf("missing root: %+v, %v", r, err)
	}
	tr := buildTree(t)
	if err := os.Remove(tr.main); err != nil {
		t.Fatal(err)
	}
	r, err = stats.Scan(tr.root, stats.Options{Price: prices})
	if err != nil {
		t.Fatal(err)
	}
	orphan := find(t, r.Sessions, "orphaned artifacts", func(s stats.Session) bool { return s.File == tr.main })
	if !orphan.Missing || orphan.ID != idOf(tr.main) || len(orphan.Advisors) != 2 || len(orphan.Subagents) != 1 || orphan.Prompts != 0 {
		t.Errorf("orphan = %+v", orphan)
	}
}

func idOf(path string) string {
	_, id, _ := strings.Cut(strings.TrimSuffix(filepath.Base(path), ".jsonl"), "_")
	return id
}

// TestReportJSON pins the document's field names, which docs/stats.md
// documents for scripts.
func TestReportJSON(t *testing.T) {
	tr := buildTree(t)
	r, err := stats.Scan(tr.root, stats.Options{Price: prices})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(m any, want ...string) {
		t.Helper()
		obj, ok := m.(map[string]any)
		if !ok {
			t.Fatalf("%v is not an object", m)
		}
		for _, k := range want {
			if _, ok := obj[k]; !ok {
				t.Errorf("%v lacks %q", obj, k)
			}
		}
	}
	keys(doc, "version", "root", "totals", "projects", "models", "roles", "sessions", "problems")
	usage := []string{"turns", "tokens", "cost", "unpriced"}
	keys(doc["totals"], append([]string{"sessions", "files", "prompts"}, usage...)...)
	keys(doc["projects"].([]any)[0], append([]string{"cwd", "sessions", "prompts"}, usage...)...)
	keys(doc["models"].([]any)[0], append([]string{"model", "priced"}, usage...)...)
	keys(doc["roles"].([]any)[0], append([]string{"role", "files"}, usage...)...)
	s := doc["sessions"].([]any)[0]
	keys(s, append([]string{"id", "file", "cwd", "started", "prompts", "primary", "subagents", "advisors"}, usage...)...)
	keys(s.(map[string]any)["tokens"], "input", "output", "cacheRead", "cacheWrite")
	keys(s.(map[string]any)["advisors"].([]any)[0], append([]string{"id", "file", "role", "parent", "readOnly", "reviews", "consults"}, usage...)...)
	keys(doc["problems"].([]any)[0], "file", "kind", "error")
}
