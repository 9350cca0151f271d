package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/session"
)

// statsScript: the primary (m) hands a task to a subagent, then answers,
// then answers a second prompt; the session's advisor (adv; its context
// holds the first prompt) sends a note, then nothing more; the subagent's
// advisor never advises, so the subagent's run stays one reply. Every
// reply reports a fixed usage, so costs are exact.
const statsScript = `
rules:
  - name: child
    model: m
    match: ["CHILD-TASK"]
    steps:
      - text: "child says 42"
        usage: {input: 50, output: 5}
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: task, arguments: {prompt: "CHILD-TASK: compute the answer", description: "compute"}}]
        usage: {input: 100, output: 10, cache_read: 1000, cache_write: 20}
      - text: "FINAL-one: the child said 42"
        usage: {input: 200, output: 20}
      - text: "FINAL-two"
        usage: {input: 300, output: 30}
      - text: "FINAL-three"
  - name: advisor
    model: adv
    match: ["ask the child"]
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "Check the child's answer.", severity: nit}}]
        usage: {input: 1000, output: 10}
      - text: "Nothing more."
        usage: {input: 1000, output: 10}
  - name: subagent's advisor
    model: adv
    repeat: true
    steps:
      - text: "Nothing to add."
        usage: {input: 1000, output: 10}
`

// Prices of the fake models, in dollars per million tokens.
const (
	priceIn, priceOut, priceCacheRead, priceCacheWrite = 1.0, 10.0, 0.1, 2.0
	advPriceIn, advPriceOut                            = 3.0, 3.0
)

// pricedModels gives the fake provider two priced models: m for the agent
// and adv for the advisor.
func pricedModels(t *testing.T, srv *fakellm.Server, agentDir string) {
	t.Helper()
	yml := fmt.Sprintf(`providers:
  fake:
    baseUrl: %s
    api: anthropic-messages
    auth: none
    models:
      - {id: m, contextWindow: 200000, maxTokens: 4096, cost: {input: %g, output: %g, cacheRead: %g, cacheWrite: %g}}
      - {id: adv, contextWindow: 200000, maxTokens: 4096, cost: {input: %g, output: %g, cacheRead: 0, cacheWrite: 0}}
`, srv.URL(), priceIn, priceOut, priceCacheRead, priceCacheWrite, advPriceIn, advPriceOut)
	if err := os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// recordSessions runs vigil twice in one session against fakellm, the
// first time with the advisor (and the subagent's), the second with
// --continue; it adds a torn
// session of another folder and a file that is not a session. It returns
// the session file and the number of advisor replies served.
func recordSessions(t *testing.T) (srv *fakellm.Server, agentDir, work, file string, advTurns int) {
	t.Helper()
	srv, agentDir, work = fakeSetup(t, statsScript)
	pricedModels(t, srv, agentDir)
	// The agent waits for each review at each step end, so the advisor is
	// done when the run is; the subagent gets an advisor of its own.
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte("advisor:\n  subagents: true\n  syncBacklog: \"1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vigil := func(args ...string) {
		t.Helper()
		out, err := vigilCommand(agentDir, work, append([]string{"-m", "fake/m"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("vigil %v: %v\n%s", args, err, out)
		}
	}
	vigil("--advisor", "--advisor-model", "fake/adv", "-p", "ask the child")
	vigil("--continue", "-p", "and again")

	for _, r := range srv.Requests() {
		if r.Model == "adv" && r.Status == 200 {
			advTurns++
		}
	}
	if advTurns == 0 {
		t.Fatal("the advisor was never called")
	}
	infos, err := session.NewManager(filepath.Join(agentDir, "sessions"), session.Options{}).List(work)
	if err != nil || len(infos) != 1 {
		t.Fatalf("sessions of %s: %v, %v; want one", work, infos, err)
	}
	file = infos[0].Path

	// A session of another folder cut off in the middle of a line, and a
	// file that only looks like a session.
	torn, err := session.NewManager(filepath.Join(agentDir, "sessions"), session.Options{}).New("/elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	torn.Close()
	f, err := os.OpenFile(torn.File(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","id":"ab`)
	f.Close()
	if err := os.WriteFile(filepath.Join(filepath.Dir(torn.File()), "notes.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, agentDir, work, file, advTurns
}

// Shapes of `vigil stats --json`, as far as the tests read it.
type usageJSON struct {
	Turns  int `json:"turns"`
	Tokens struct {
		Input, Output, CacheRead, CacheWrite int64
	} `json:"tokens"`
	Cost     float64 `json:"cost"`
	Unpriced int     `json:"unpriced"`
}

type transcriptJSON struct {
	usageJSON
	ID       string `json:"id"`
	File     string `json:"file"`
	Role     string `json:"role"`
	Parent   string `json:"parent"`
	ReadOnly bool   `json:"readOnly"`
	Reviews  int    `json:"reviews"`
}

type sessionJSON struct {
	usageJSON
	ID        string           `json:"id"`
	File      string           `json:"file"`
	Cwd       string           `json:"cwd"`
	Prompts   int              `json:"prompts"`
	Primary   usageJSON        `json:"primary"`
	Subagents []transcriptJSON `json:"subagents"`
	Advisors  []transcriptJSON `json:"advisors"`
}

type statsJSON struct {
	Version int `json:"version"`
	Totals  struct {
		usageJSON
		Sessions, Files, Prompts int
	} `json:"totals"`
	Projects []struct {
		usageJSON
		Cwd      string `json:"cwd"`
		Sessions int    `json:"sessions"`
		Prompts  int    `json:"prompts"`
	} `json:"projects"`
	Models []struct {
		usageJSON
		Model  string `json:"model"`
		Priced bool   `json:"priced"`
	} `json:"models"`
	Roles []struct {
		usageJSON
		Role  string `json:"role"`
		Files int    `json:"files"`
	} `json:"roles"`
	Sessions []sessionJSON `json:"sessions"`
	Problems []struct {
		File, Kind, Error string
	} `json:"problems"`
}

func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestStatsOverRecordedRuns records real sessions with vigil itself (an
// advisor transcript, a task subagent, two prompts) and checks what
// `vigil stats` makes of them.
func TestStatsOverRecordedRuns(t *testing.T) {
	_, agentDir, work, file, advTurns := recordSessions(t)
	out, err := vigilCommand(agentDir, work, "stats", "--json").Output()
	if err != nil {
		t.Fatalf("vigil stats --json: %v\n%s", err, out)
	}
	var r statsJSON
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("stats --json is not one JSON document: %v\n%s", err, out)
	}
	if r.Version != 1 {
		t.Errorf("version = %d", r.Version)
	}

	// Costs, from the script's fixed usage and the models' prices.
	primaryCost := (100*priceIn+10*priceOut+1000*priceCacheRead+20*priceCacheWrite)/1e6 +
		(200*priceIn+20*priceOut)/1e6 + (300*priceIn+30*priceOut)/1e6
	subCost := (50*priceIn + 5*priceOut) / 1e6
	advCost := float64(advTurns) * (1000*advPriceIn + 10*advPriceOut) / 1e6

	var s *sessionJSON
	for i := range r.Sessions {
		if r.Sessions[i].File == file {
			s = &r.Sessions[i]
		}
	}
	if s == nil {
		t.Fatalf("no session %s in %+v", file, r.Sessions)
	}
	// Two prompts: not the tool results, not the subagent's task, not
	// the advisor's updates.
	if s.Prompts != 2 {
		t.Errorf("prompts = %d, want 2", s.Prompts)
	}
	if s.Primary.Turns != 3 || s.Primary.Tokens.Input != 600 || s.Primary.Tokens.CacheRead != 1000 || !closeTo(s.Primary.Cost, primaryCost) {
		t.Errorf("primary = %+v, want 3 turns, 600 input, 1000 cache read, $%g", s.Primary, primaryCost)
	}
	if len(s.Subagents) != 1 || s.Subagents[0].Turns != 1 || s.Subagents[0].Tokens.Input != 50 || !strings.HasPrefix(s.Subagents[0].ID, "task-") {
		t.Errorf("subagents = %+v", s.Subagents)
	}
	// The session's advisor and the subagent's, both attributed here.
	if len(s.Advisors) != 2 {
		t.Fatalf("advisors = %+v, want the session's and the subagent's", s.Advisors)
	}
	var advSum usageJSON
	parents := map[string]bool{}
	for _, adv := range s.Advisors {
		if adv.Role != "advisor" || !adv.ReadOnly {
			t.Errorf("advisor = %+v, want role advisor, read-only", adv)
		}
		parents[adv.Parent] = true
		advSum.Turns += adv.Turns
		advSum.Tokens.Input += adv.Tokens.Input
		advSum.Cost += adv.Cost
	}
	if len(s.Subagents) == 1 && (!parents[s.ID] || !parents[s.Subagents[0].ID]) {
		t.Errorf("advisors belong to %v, want %s and %s", parents, s.ID, s.Subagents[0].ID)
	}
	if advSum.Turns != advTurns || advSum.Tokens.Input != int64(1000*advTurns) || !closeTo(advSum.Cost, advCost) {
		t.Errorf("advisors add up to %+v, want %d turns costing $%g", advSum, advTurns, advCost)
	}
	if s.Turns != 3+1+advTurns || !closeTo(s.Cost, primaryCost+subCost+advCost) {
		t.Errorf("session total: %d turns, $%g; want %d and $%g", s.Turns, s.Cost, 4+advTurns, primaryCost+subCost+advCost)
	}

	roles := map[string][2]int{}
	for _, ro := range r.Roles {
		roles[ro.Role] = [2]int{ro.Files, ro.Turns}
	}
	// The torn session of /elsewhere is a primary file with no turns.
	if roles["primary"] != [2]int{2, 3} || roles["subagent"] != [2]int{1, 1} || roles["advisor"] != [2]int{2, advTurns} {
		t.Errorf("roles (files, turns) = %v", roles)
	}
	models := map[string]int{}
	for _, m := range r.Models {
		models[m.Model] = m.Turns
		if !m.Priced {
			t.Errorf("model %s unpriced", m.Model)
		}
	}
	if models["fake/m"] != 4 || models["fake/adv"] != advTurns {
		t.Errorf("models (turns) = %v", models)
	}
	if r.Totals.Sessions != 2 || r.Totals.Files != 5 || r.Totals.Prompts != 2 || r.Totals.Unpriced != 0 {
		t.Errorf("totals = %+v", r.Totals)
	}
	kinds := map[string]string{}
	for _, p := range r.Problems {
		kinds[filepath.Base(p.File)] = p.Kind
	}
	if len(kinds) != 2 || kinds["notes.jsonl"] != "unreadable" {
		t.Errorf("problems = %+v, want the torn session and notes.jsonl", r.Problems)
	}

	// --project keeps one folder; the text report has every table.
	out, err = vigilCommand(agentDir, work, "stats", "--project", "elsewhere", "--json").Output()
	if err != nil || json.Unmarshal(out, &r) != nil || len(r.Sessions) != 1 || r.Sessions[0].Cwd != "/elsewhere" {
		t.Errorf("stats --project elsewhere: %v\n%s", err, out)
	}
	text, err := vigilCommand(agentDir, work, "stats").Output()
	if err != nil {
		t.Fatalf("vigil stats: %v\n%s", err, text)
	}
	for _, want := range []string{"2 sessions (5 files), 2 prompts", "PROJECT", work, "MODEL", "fake/adv", "ROLE", "advisor", "subagent", "SESSION", s.ID, "torn", "unreadable"} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("vigil stats lacks %q:\n%s", want, text)
		}
	}
	if _, err := vigilCommand(agentDir, work, "stats", "--since", "last tuesday").Output(); err == nil {
		t.Error("stats --since with a bad date: no error")
	}
	out, err = vigilCommand(agentDir, work, "stats", "--since", "2999-01-01", "--json").Output()
	if err != nil || json.Unmarshal(out, &r) != nil || len(r.Sessions) != 0 {
		t.Errorf("stats --since in the future: %v\n%s", err, out)
	}
}

// TestSessionsListsTranscriptsAndRefusesAdvisorResume lists the recorded
// session with its subagent and its advisor, read-only, and checks that
// --resume refuses an advisor transcript, by path or by id, without
// touching it.
func TestSessionsListsTranscriptsAndRefusesAdvisorResume(t *testing.T) {
	srv, agentDir, work, file, _ := recordSessions(t)
	out, err := vigilCommand(agentDir, work, "sessions").Output()
	if err != nil {
		t.Fatalf("vigil sessions: %v\n%s", err, out)
	}
	id := strings.TrimSuffix(filepath.Base(file)[strings.Index(filepath.Base(file), "_")+1:], ".jsonl")
	for _, want := range []string{"SESSION", id, "subagent task-", "advisor (read-only), ", "advisor of task-", " review", session.AdvisorTranscript} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("vigil sessions lacks %q:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte("/elsewhere")) {
		t.Errorf("vigil sessions lists another folder's session:\n%s", out)
	}
	out, err = vigilCommand(agentDir, work, "sessions", "--all", "--json").Output()
	if err != nil {
		t.Fatalf("vigil sessions --all --json: %v\n%s", err, out)
	}
	var list struct {
		Sessions []sessionJSON `json:"sessions"`
	}
	if err := json.Unmarshal(out, &list); err != nil || len(list.Sessions) != 2 {
		t.Fatalf("sessions --all --json: %v, %d sessions\n%s", err, len(list.Sessions), out)
	}
	if list.Sessions[0].Cwd != "/elsewhere" {
		t.Errorf("sessions not newest first: %s before %s", list.Sessions[0].File, list.Sessions[1].File)
	}
	adv := list.Sessions[1].Advisors
	if len(adv) != 2 || adv[0].Parent != id || !adv[0].ReadOnly || adv[0].Reviews < 1 {
		t.Fatalf("advisors = %+v", adv)
	}

	// --resume of the advisor's transcript, by path.
	advPath := adv[0].File
	before, err := os.ReadFile(advPath)
	if err != nil {
		t.Fatal(err)
	}
	requests := len(srv.Requests())
	out, err = vigilCommand(agentDir, work, "-m", "fake/m", "--resume", advPath, "-p", "hello advisor").CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte("read-only")) || !bytes.Contains(out, []byte(id)) {
		t.Errorf("--resume %s: %v\n%s; want a refusal naming the watched session", advPath, err, out)
	}
	// A copy under a session's name is found by id, and refused by its
	// header.
	copyPath := filepath.Join(filepath.Dir(file), "2026-01-01T00-00-00.000Z_00advisorcopy00.jsonl")
	if err := os.WriteFile(copyPath, before, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = vigilCommand(agentDir, work, "-m", "fake/m", "--resume", "00advisorcopy00", "-p", "hello advisor").CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte("read-only")) {
		t.Errorf("--resume of a copied advisor transcript: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(advPath); !bytes.Equal(after, before) {
		t.Error("a refused resume changed the advisor transcript")
	}
	if n := len(srv.Requests()); n != requests {
		t.Errorf("a refused resume made %d model requests", n-requests)
	}
	// The session itself still resumes.
	out, err = vigilCommand(agentDir, work, "-m", "fake/m", "--resume", id, "-p", "and again").CombinedOutput()
	if err != nil {
		t.Errorf("--resume %s: %v\n%s", id, err, out)
	}

	// From another folder, sessions lists nothing without --all.
	other := t.TempDir()
	out, err = vigilCommand(agentDir, other, "sessions").Output()
	if err != nil || !bytes.Contains(out, []byte("no sessions of")) {
		t.Errorf("vigil sessions elsewhere: %v\n%s", err, out)
	}
}
