package supervise_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// agentWorld is vigil's own agent on fakellm (model fake/m) in a work
// folder, and the Config its advisor is built from: settings parsed
// from YAML, the roster of the user's WATCHDOG.yml.
type agentWorld struct {
	srv      *fakellm.Server
	work     string
	agentDir string
	sess     *session.Session
	ag       *agent.Agent
	fwd      *advisorhost.ForwardHook
	cfg      *supervise.Config
	warn     []string
}

func newAgentWorld(t *testing.T, script, settings, watchdog string, ids ...string) *agentWorld {
	t.Helper()
	return newAgentWorldOn(t, script, settings, watchdog, "fake/m", func(srv *fakellm.Server) *models.Registry {
		return registry(t, srv, append([]string{"m"}, ids...)...)
	})
}

// newAgentWorldOn is newAgentWorld with the agent on agentRef of the
// registry reg makes.
func newAgentWorldOn(t *testing.T, script, settings, watchdog, agentRef string, reg func(*fakellm.Server) *models.Registry) *agentWorld {
	t.Helper()
	w := &agentWorld{srv: fakellm.StartTest(t, fakellm.MustParse(t, script)), work: t.TempDir(), fwd: &advisorhost.ForwardHook{}}
	// The work folder is a project's root.
	if err := os.Mkdir(filepath.Join(w.work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	registry := reg(w.srv)
	s, err := config.Parse("settings.yml", []byte(settings))
	if err != nil {
		t.Fatal(err)
	}
	// The user's own WATCHDOG.yml: a project's waits until the folder
	// is trusted.
	agentDir := t.TempDir()
	w.agentDir = agentDir
	if watchdog != "" {
		if err := os.WriteFile(filepath.Join(agentDir, "WATCHDOG.yml"), []byte(watchdog), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	roster, err := config.LoadRoster(config.RosterOptions{AgentDir: agentDir, Dir: w.work, ProjectRoot: w.work})
	if err != nil {
		t.Fatal(err)
	}
	w.warn = roster.Warnings
	w.sess, err = session.NewManager(t.TempDir(), session.Options{}).New(w.work)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.sess.Close() })
	res, err := registry.Resolve(agentRef)
	if err != nil {
		t.Fatal(err)
	}
	model, err := res.Open()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.NewSession(tools.Options{Cwd: w.work, Roots: []string{w.work}, ArtifactsDir: w.sess.ArtifactsDir()})
	if err != nil {
		t.Fatal(err)
	}
	w.ag, err = agent.New(agent.Options{Model: model, Info: res.Info, Session: w.sess, Tools: ts.Tools(), Hooks: []agent.Hook{w.fwd}})
	if err != nil {
		t.Fatal(err)
	}
	w.cfg = &supervise.Config{
		Settings: s, Registry: registry, Roster: roster,
		AgentDir: agentDir, ProjectDir: w.work, Dir: w.work, Roots: []string{w.work},
		Logf:       t.Logf,
		AgentModel: func() *models.Resolved { return res },
	}
	return w
}

// start starts the agent's advisor at the session's beginning, on the
// advisor model ref ("": none).
func (w *agentWorld) start(t *testing.T, ref string) *supervise.AgentRun {
	t.Helper()
	var res *models.Resolved
	if ref != "" {
		var err error
		if res, err = w.cfg.Registry.Resolve(ref); err != nil {
			t.Fatal(err)
		}
	}
	run, err := supervise.StartAgent(w.cfg, supervise.AgentOptions{Agent: w.ag, Session: w.sess, Start: advisor.StartAtBeginning, Model: res, Hook: w.fwd})
	if err != nil || run == nil {
		t.Fatalf("StartAgent: %v, %v", run, err)
	}
	return run
}

// requests are the bodies of fakellm's requests to each model.
func (w *agentWorld) requests() map[string][]string {
	out := map[string][]string{}
	for _, r := range w.srv.Requests() {
		out[r.Model] = append(out[r.Model], string(r.Body))
	}
	return out
}

// TestAgentRoster runs vigil's agent with two advisors declared in
// WATCHDOG.yml, each on its own model: both review the same steps, the
// agent gets at most one note per step from the two (maxNotesPerUpdate
// 1), each note names its advisor, each advisor's prompt holds the shared
// instructions before its own and only the tools it may have, each has its
// own transcript, and the status lists both and the one that cannot run.
// Each advisor repeats its note at every review: whichever the cap held
// back at step 1 lands after step 2, in either order.
func TestAgentRoster(t *testing.T) {
	w := newAgentWorld(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - text: "FINAL-answer"
  - name: tests
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "NOTE-tests: false always fails; read the test first.", severity: nit}}]
      - text: "Nothing more."
      - tool_calls: [{name: advise, arguments: {note: "NOTE-tests: false always fails; read the test first.", severity: nit}}]
      - text: "Nothing more."
      - tool_calls: [{name: advise, arguments: {note: "NOTE-tests: false always fails; read the test first.", severity: nit}}]
      - text: "Nothing more."
  - name: scope
    model: adv2
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "NOTE-scope: the task never asked for false.", severity: nit}}]
      - text: "Nothing more."
      - tool_calls: [{name: advise, arguments: {note: "NOTE-scope: the task never asked for false.", severity: nit}}]
      - text: "Nothing more."
      - tool_calls: [{name: advise, arguments: {note: "NOTE-scope: the task never asked for false.", severity: nit}}]
      - text: "Nothing more."
`, "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n", `
instructions: SHARED-INSTR for every advisor.
maxNotesPerUpdate: 1
advisors:
  - name: tests
    model: fake/adv
    instructions: OWN-TESTS only.
  - name: scope
    model: fake/adv2
    instructions: OWN-SCOPE only.
    tools: [read, bash]
  - name: broken
    model: fake/none
`, "adv", "adv2")
	run := w.start(t, "")
	if err := w.ag.Prompt(t.Context(), "make false pass"); err != nil {
		t.Fatal(err)
	}
	rep := run.Report(supervise.Spent{})
	run.Stop()

	for _, want := range []string{"- tests: running", "on fake/adv;", "- scope: running", "on fake/adv2;", "- broken: not running, no model"} {
		if !strings.Contains(rep.Text, want) {
			t.Errorf("status lacks %q: %s", want, rep.Text)
		}
	}
	if rep.Roster != rep.Text || rep.Line.Model != "2 of 3: tests, scope" {
		t.Errorf("a roster's listing %q, status line %+v", rep.Roster, rep.Line)
	}
	if !strings.Contains(strings.Join(w.warn, "\n"), "advisor scope asks for bash: vigil's advisors never write or execute") {
		t.Errorf("the roster's warnings lack scope's bash: %q", w.warn)
	}

	reqs := w.requests()
	primary := reqs["m"]
	if len(primary) != 4 {
		t.Fatalf("%d primary requests, want 4", len(primary))
	}
	count := func(body string) int {
		return strings.Count(body, "NOTE-tests") + strings.Count(body, "NOTE-scope")
	}
	// Request 2 follows step 1, which both advisors reviewed: one note.
	if n := count(primary[1]); n != 1 {
		t.Errorf("the request after step 1 carries %d notes, want 1 (maxNotesPerUpdate)", n)
	}
	last := primary[3]
	if !strings.Contains(last, `advisor=\"tests\"`) || !strings.Contains(last, `advisor=\"scope\"`) {
		t.Errorf("the final request lacks a note of each advisor, named:\n%s", last)
	}
	for model, own := range map[string]string{"adv": "OWN-TESTS", "adv2": "OWN-SCOPE"} {
		body := reqs[model][0]
		i, j := strings.Index(body, "SHARED-INSTR"), strings.Index(body, own)
		if i < 0 || j < i {
			t.Errorf("%s's prompt: shared at %d, own at %d, want shared first", model, i, j)
		}
	}
	if scope := reqs["adv2"][0]; strings.Contains(scope, `"name":"bash"`) || !strings.Contains(scope, `"name":"read"`) || strings.Contains(scope, `"name":"grep"`) {
		t.Errorf("scope's tools are not read alone")
	}
	dir := strings.TrimSuffix(w.sess.File(), ".jsonl")
	for _, name := range []string{"__advisor-tests.jsonl", "__advisor-scope.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("transcript %s: %v", name, err)
		}
	}
}

// TestAgentWatchdog: WATCHDOG.md files reach the advisor's system
// prompt in the seed's order (user level, then the project's WATCHDOG.md,
// then its .vigil/WATCHDOG.md, then deeper folders), each in an attention
// element, and never the primary's context (omp §20.3).
func TestAgentWatchdog(t *testing.T) {
	w := newAgentWorld(t, `
rules:
  - model: m
    repeat: true
    steps:
      - text: "done"
  - model: adv
    repeat: true
    steps:
      - text: "Nothing to add."
`, "advisor:\n  syncBacklog: \"1\"\n", "", "adv")
	sub := filepath.Join(w.work, "pkg")
	for path, text := range map[string]string{
		filepath.Join(w.agentDir, "WATCHDOG.md"):        "USER-RULE: flag force pushes.",
		filepath.Join(w.work, "WATCHDOG.md"):            "PROJECT-RULE: tests live in tests/.",
		filepath.Join(w.work, ".vigil", "WATCHDOG.md"):  "DOTVIGIL-RULE: never edit vendor/.",
		filepath.Join(sub, "WATCHDOG.md"):               "SUB-RULE: pkg is generated.",
		filepath.Join(w.work, ".github", "WATCHDOG.md"): "HIDDEN-RULE: must not load.",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w.cfg.Dir = sub
	run := w.start(t, "fake/adv")
	if err := w.ag.Prompt(t.Context(), "hello"); err != nil {
		t.Fatal(err)
	}
	dump := run.Dump(true)
	run.Stop()

	last := -1
	for _, rule := range []string{"USER-RULE", "PROJECT-RULE", "DOTVIGIL-RULE", "SUB-RULE"} {
		i := strings.Index(dump, rule)
		if i < 0 {
			t.Errorf("the advisor's system prompt lacks %s", rule)
			continue
		}
		if i < last {
			t.Errorf("%s is out of order", rule)
		}
		last = i
	}
	if strings.Contains(dump, "HIDDEN-RULE") {
		t.Error("a WATCHDOG.md in a hidden folder was loaded")
	}
	if n := strings.Count(dump, "Especially pay attention to:"); n != 4 {
		t.Errorf("%d attention blocks, want 4", n)
	}
	for _, body := range w.requests()["m"] {
		if strings.Contains(body, "-RULE") {
			t.Error("WATCHDOG.md reached the primary's context")
		}
	}
}

// TestAgentRulesReviewer runs the advisor with advisor.reviewer rules:
// no advisor model at all, and the detectors' note about a command that
// keeps failing the same way reaches the primary within the run.
func TestAgentRulesReviewer(t *testing.T) {
	w := newAgentWorld(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - text: "FINAL: the folder is missing."
  - name: after-advice
    model: m
    repeat: true
    steps:
      - text: "ACK"
`, "advisor:\n  enabled: true\n  reviewer: rules\n  syncBacklog: \"1\"\n", "")
	run := w.start(t, "")
	if err := w.ag.Prompt(t.Context(), "list the folder"); err != nil {
		t.Fatal(err)
	}
	rep := run.Report(supervise.Spent{})
	run.Stop()
	if !strings.Contains(rep.Text, "rules: zero-token detectors") || rep.Line.Model != "rules" {
		t.Errorf("status %q, line %+v", rep.Text, rep.Line)
	}
	landed, n := -1, 0
	for _, r := range w.srv.Requests() {
		if r.Model != "m" {
			t.Errorf("a request to model %q: the rules reviewer must call no model", r.Model)
			continue
		}
		n++
		if landed < 0 && strings.Contains(string(r.Body), "advisory") {
			landed = n
		}
	}
	if landed < 0 {
		t.Fatalf("no primary request of %d carries the detectors' advisory", n)
	}
	if landed > 4 {
		t.Errorf("the advisory first lands in request %d, want within the run of repeated failures", landed)
	}
}
