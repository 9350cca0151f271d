package advisorhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// A scenario is a txtar archive under testdata/scenarios:
//
//	-- settings.yml --   advisor settings: syncBacklog (int), syncTimeoutSeconds,
//	                     immuneTurns, callTimeoutSeconds, start (beginning|end|primed);
//	                     mode: periodic and its everyToolCalls, everyMinutes,
//	                     reviewInstructions, reviewTimeoutSeconds,
//	                     allowPromptInjection (default true, in either mode); subagents: true
//	                     gives the primary the task tool; roster: [{name, model}] runs
//	                     one advisor per entry (model: its fakellm model, "adv" for the
//	                     first by default) through one RosterGuard of maxNotesPerUpdate;
//	                     cadence: every|final|N; continueAfterAdvise: true asks the
//	                     advisor model again after a round of advise calls only
//	-- fakellm.yml --    one fakellm script; the primary is model "m", the advisor "adv";
//	                     a periodic review's fork goes to "m" with "### Advisor review"
//	                     in its body, and a subagent's requests to "m" with the
//	                     system prompt SUBAGENT-SYSTEM-PROMPT
//	-- actions --        one action a line (see run)
//	-- want --           one check a line (see check)
//
// The comment before the first file says what the scenario shows and
// which part of the spec it comes from.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			newScenario(t, ar).play()
		})
	}
}

type scenarioSettings struct {
	SyncBacklog        int    `yaml:"syncBacklog"`
	SyncTimeoutSeconds int    `yaml:"syncTimeoutSeconds"`
	ImmuneTurns        int    `yaml:"immuneTurns"`
	CallTimeoutSeconds int    `yaml:"callTimeoutSeconds"`
	Start              string `yaml:"start"`
	Subagents          bool   `yaml:"subagents"`
	PeriodicSettings   `yaml:",inline"`
	// Roster runs several advisors over the one agent.
	Roster []struct {
		Name         string `yaml:"name"`
		Model        string `yaml:"model"`
		Instructions string `yaml:"instructions"`
	} `yaml:"roster"`
	// RosterInstructions are the roster's shared instructions (the
	// periodic roster's review prompt).
	RosterInstructions string `yaml:"rosterInstructions"`
	MaxNotesPerUpdate  int    `yaml:"maxNotesPerUpdate"`
	// Cadence is the advisor's review cadence (every, final, N).
	Cadence string `yaml:"cadence"`
	// ContinueAfterAdvise is the advisor's [advisor.Options.ContinueAfterAdvise].
	ContinueAfterAdvise bool `yaml:"continueAfterAdvise"`
}

type scenario struct {
	t        *testing.T
	files    map[string]string
	settings scenarioSettings
	dir      string
	srv      *fakellm.Server
	sessions *session.Manager
	sess     *session.Session
	ag       *agent.Agent
	host     *advisorhost.Host
	rt       *advisor.Runtime
	roster   []*advisor.Runtime
	per      *advisor.Periodic
	proster  *advisor.PeriodicRoster
	gate     *gatedModel

	mu     sync.Mutex
	events []agent.Event
	notify chan struct{} // closed and replaced at each event
	mark   int           // events before the last action that was not a wait
	runs   sync.WaitGroup
	runErr []error
	logs   []string
}

func newScenario(t *testing.T, ar *txtar.Archive) *scenario {
	s := &scenario{t: t, files: map[string]string{}, notify: make(chan struct{})}
	for _, f := range ar.Files {
		s.files[f.Name] = string(f.Data)
	}
	if err := yaml.Unmarshal([]byte(s.files["settings.yml"]), &s.settings); err != nil {
		t.Fatalf("settings.yml: %v", err)
	}
	s.dir = t.TempDir()
	s.srv = fakellm.StartTest(t, fakellm.MustParse(t, s.files["fakellm.yml"]))
	s.sessions = session.NewManager(t.TempDir(), session.Options{})
	sess, err := s.sessions.New(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	s.sess = sess
	t.Cleanup(func() { s.sess.Close() })
	return s
}

func (s *scenario) model(name string) llm.Model {
	tr := &http.Transport{}
	s.t.Cleanup(tr.CloseIdleConnections)
	m, err := anthropic.New(anthropic.Config{BaseURL: s.srv.URL(), APIKey: "k", Model: name, HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		s.t.Fatal(err)
	}
	return m
}

// build makes the agent and its advisor over the current session.
func (s *scenario) build() {
	t := s.t
	ts, err := tools.NewSession(tools.Options{Cwd: s.dir, Roots: []string{s.dir}, ArtifactsDir: s.sess.ArtifactsDir()})
	if err != nil {
		t.Fatal(err)
	}
	var fwd hookRef
	opts := agent.Options{Model: s.model("m"), Session: s.sess, Tools: ts.Tools(), Hooks: []agent.Hook{&fwd}}
	if s.settings.Subagents {
		opts.Subagents = &agent.SubagentConfig{System: subagentSystem}
	}
	s.ag, err = agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.ag.Subscribe(s.record)
	s.host = advisorhost.New(s.ag, s.sess)
	fwd.h = s.host.Hook()
	if s.settings.Mode == "periodic" {
		s.buildPeriodic()
		return
	}
	s.gate = &gatedModel{m: s.model("adv"), open: make(chan struct{})}
	close(s.gate.open)
	start := map[string]advisor.StartPoint{"": advisor.StartAtBeginning, "beginning": advisor.StartAtBeginning, "end": advisor.StartAtEnd, "primed": advisor.StartPrimed}[s.settings.Start]
	if len(s.settings.Roster) > 0 {
		s.buildRoster(start)
		return
	}
	cadence, err := advisor.ParseCadence(s.settings.Cadence)
	if err != nil {
		t.Fatalf("settings.yml: %v", err)
	}
	s.rt, err = advisor.New(advisor.Options{
		Model:       s.gate,
		Host:        s.host,
		Roots:       []string{s.dir},
		ImmuneTurns: s.settings.ImmuneTurns,
		Start:       start,
		CallTimeout: time.Duration(s.settings.CallTimeoutSeconds) * time.Second,
		Logf:        s.logf,
		Cadence:     cadence,
		Withhold:    s.settings.AllowPromptInjection != nil && !*s.settings.AllowPromptInjection,

		ContinueAfterAdvise: s.settings.ContinueAfterAdvise,
	})
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.Duration(max(s.settings.SyncTimeoutSeconds, 1)) * time.Second
	if s.settings.SyncTimeoutSeconds == 0 {
		timeout = 30 * time.Second
	}
	s.host.SetSync(s.settings.SyncBacklog, timeout, s.rt.WaitBacklogBelow)
	s.host.Forward(s.rt.Notify)
	s.rt.Start(context.Background())
	t.Cleanup(func() {
		s.rt.Stop()
		s.host.Close()
	})
}

// buildRoster runs one advisor per roster entry over the host, as vigil's
// agent does with a WATCHDOG.yml roster.
func (s *scenario) buildRoster(start advisor.StartPoint) {
	t := s.t
	guard := advisor.NewRosterGuard(s.settings.MaxNotesPerUpdate)
	for _, m := range s.settings.Roster {
		rt, err := advisor.New(advisor.Options{
			Name: m.Name, Roster: guard, Model: s.model(cmpOr(m.Model, "adv")), Host: s.host, Roots: []string{s.dir},
			ImmuneTurns: s.settings.ImmuneTurns, Start: start, Logf: s.logf,
		})
		if err != nil {
			t.Fatal(err)
		}
		s.roster = append(s.roster, rt)
	}
	s.rt = s.roster[0]
	waitAll := func(ctx context.Context, n int) error {
		for _, rt := range s.roster {
			if err := rt.WaitBacklogBelow(ctx, n); err != nil {
				return err
			}
		}
		return nil
	}
	s.host.SetSync(s.settings.SyncBacklog, 30*time.Second, waitAll)
	s.host.Forward(func(ev advisor.Event) {
		if ev.Kind == advisor.EventStepEnded {
			guard.NewStep()
		}
		for _, rt := range s.roster {
			rt.Notify(ev)
		}
	})
	for _, rt := range s.roster {
		rt.Start(context.Background())
	}
	t.Cleanup(func() {
		for _, rt := range s.roster {
			rt.Stop()
		}
		s.host.Close()
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (s *scenario) record(ev agent.Event) {
	s.mu.Lock()
	s.events = append(s.events, ev)
	close(s.notify)
	s.notify = make(chan struct{})
	s.mu.Unlock()
}

// gatedModel holds advisor calls while its gate is shut.
type gatedModel struct {
	m    llm.Model
	mu   sync.Mutex
	open chan struct{}
}

func (g *gatedModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
	case <-ctx.Done():
		return func(yield func(llm.Event, error) bool) { yield(llm.Event{}, ctx.Err()) }
	}
	return g.m.Stream(ctx, req)
}

func (g *gatedModel) set(open bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if open {
		select {
		case <-g.open:
		default:
			close(g.open)
		}
		return
	}
	g.open = make(chan struct{})
}

const scenarioBound = 20 * time.Second

func (s *scenario) play() {
	s.build()
	for n, line := range strings.Split(s.files["actions"], "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, arg, _ := strings.Cut(line, " ")
		if verb != "wait" {
			s.mu.Lock()
			s.mark = len(s.events)
			s.mu.Unlock()
		}
		if err := s.act(verb, arg); err != nil {
			s.t.Fatalf("actions:%d: %s: %v", n+1, line, err)
		}
	}
	s.runs.Wait()
	s.check()
}

func (s *scenario) act(verb, arg string) error {
	ctx := context.Background()
	switch verb {
	case "prompt": // run a prompt to its end
		return s.ag.Prompt(ctx, arg)
	case "start": // start a prompt in the background
		s.runs.Add(1)
		go func() {
			defer s.runs.Done()
			if err := s.ag.Prompt(ctx, arg); err != nil {
				s.mu.Lock()
				s.runErr = append(s.runErr, err)
				s.mu.Unlock()
			}
		}()
	case "resume": // the user resumes the stopped run with arg, to its end
		return s.ag.Resume(ctx, arg)
	case "wait":
		return s.wait(arg)
	case "abort":
		s.ag.Abort()
	case "compact":
		return s.ag.Compact(ctx, "")
	case "branch": // branch from just before the user message holding arg
		for _, e := range s.sess.Entries() {
			if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleUser && strings.Contains(m.Message.Text(), arg) {
				return s.ag.BranchFrom(e.ParentID)
			}
		}
		return fmt.Errorf("no user message holds %q", arg)
	case "hold": // hold the advisor's model calls
		s.gate.set(false)
	case "release":
		s.gate.set(true)
	case "mkfifo":
		return exec.Command("mkfifo", filepath.Join(s.dir, arg)).Run()
	case "open": // let a command blocked reading the FIFO arg go on
		f, err := os.OpenFile(filepath.Join(s.dir, arg), os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	default:
		return fmt.Errorf("unknown action %q", verb)
	}
	return nil
}

// wait waits for: "idle", "tool", "step" or "delta" (an event after the last
// action, or after the event the previous wait matched), "advisor" (every
// reported step reviewed).
func (s *scenario) wait(what string) error {
	ctx, cancel := context.WithTimeout(context.Background(), scenarioBound)
	defer cancel()
	if what == "advisor" {
		if s.proster != nil {
			return s.proster.WaitReview(ctx)
		}
		if s.per != nil {
			return s.per.WaitReview(ctx)
		}
		for _, rt := range s.roster {
			if err := rt.WaitBacklogBelow(ctx, 1); err != nil {
				return err
			}
		}
		return s.rt.WaitBacklogBelow(ctx, 1)
	}
	types := map[string]agent.EventType{"idle": agent.EventIdle, "tool": agent.EventToolStart, "step": agent.EventStepEnd, "delta": agent.EventMessageDelta}
	want, ok := types[what]
	if !ok {
		return fmt.Errorf("unknown wait %q", what)
	}
	for {
		s.mu.Lock()
		for i, ev := range s.events[s.mark:] {
			if ev.Type == want {
				// A wait consumes the event: the next wait needs a new one.
				s.mark += i + 1
				s.mu.Unlock()
				return nil
			}
		}
		ch := s.notify
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("no %s event", what)
		}
	}
}

// check runs the want lines:
//
//	primary N contains|lacks TEXT   N from 1, or "last"; the request's body
//	advisor N contains|lacks TEXT
//	fork N contains|lacks TEXT      a periodic review's fork
//	primary N tail TEXT             the last message of request N holds TEXT
//	primary N count K TEXT          TEXT occurs K times in request N
//	MODEL N contains|lacks TEXT     a roster advisor's request N, by its model
//	any-advisor contains TEXT       some request of some advisor holds TEXT
//	primary|advisor|fork|subagent requests N   how many requests each got
//	advisor N messages K            how many messages request N sends
//	log contains|lacks TEXT         the advisor's log lines
//	health STATE                    the advisor's health now ("quota exhausted")
//	prose-streak N                  its reviews in a row that ended in prose
//	turns N                         turn_start events of the primary
//	aborts N                        requests of the primary a blocker aborted
//	cards N                         advisor entries held as cards
//	advisories N                    advisor entries the model is sent, any delivery
//	withheld N                      advisor entries shown only (allowPromptInjection false)
//	steps N                         assistant messages in the session file
//	errors N                        background prompts that failed
func (s *scenario) check() {
	t := s.t
	reqs := map[string][]request{}
	for _, r := range s.srv.Requests() {
		who := map[string]string{"m": "primary", "adv": "advisor"}[r.Model]
		if who == "" {
			who = r.Model // a roster's other advisors, by their model
		}
		switch body := string(r.Body); {
		case who == "primary" && strings.Contains(body, advisor.ReviewHeading):
			who = "fork"
		case who == "primary" && strings.Contains(body, subagentSystem):
			who = "subagent"
		}
		reqs[who] = append(reqs[who], parseRequest(t, r.Body))
		if r.Model != "m" {
			reqs["any-advisor"] = append(reqs["any-advisor"], parseRequest(t, r.Body))
		}
	}
	for n, line := range strings.Split(s.files["want"], "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 4)
		fail := func(format string, args ...any) {
			t.Errorf("want:%d: %s: %s", n+1, line, fmt.Sprintf(format, args...))
		}
		switch {
		case f[0] == "log" && len(f) >= 3:
			s.checkLog(f[1], strings.SplitN(line, " ", 3)[2], fail)
		case len(f) == 3 && f[1] == "requests":
			if got := len(reqs[f[0]]); strconv.Itoa(got) != f[2] {
				fail("got %d", got)
			}
		case f[0] == "any-advisor" && len(f) >= 3 && f[1] == "contains":
			text := strings.SplitN(line, " ", 3)[2]
			found := false
			for _, req := range reqs["any-advisor"] {
				found = found || strings.Contains(req.text, text)
			}
			if !found {
				fail("no advisor's request has it")
			}
		case len(f) >= 3 && (f[0] == "primary" || f[0] == "advisor" || f[0] == "fork" || reqs[f[0]] != nil):
			list := reqs[f[0]]
			i := len(list)
			if f[1] != "last" {
				i, _ = strconv.Atoi(f[1])
			}
			if i < 1 || i > len(list) {
				fail("only %d requests", len(list))
				continue
			}
			req := list[i-1]
			switch {
			case f[2] == "contains" && len(f) == 4:
				if !strings.Contains(req.text, f[3]) {
					fail("the request's text lacks it:\n%.4000s", req.text)
				}
			case f[2] == "lacks" && len(f) == 4:
				if strings.Contains(req.text, f[3]) {
					fail("the request's text has it:\n%.4000s", req.text)
				}
			case f[2] == "count" && len(f) == 4:
				n, text, _ := strings.Cut(f[3], " ")
				if got := strconv.Itoa(strings.Count(req.text, text)); got != n {
					fail("it occurs %s times:\n%.4000s", got, req.text)
				}
			case f[2] == "messages" && len(f) == 4:
				if strconv.Itoa(req.messages) != f[3] {
					fail("got %d", req.messages)
				}
			case f[2] == "tail" && len(f) == 4:
				if !strings.Contains(req.tail, f[3]) {
					fail("the request's last message lacks it:\n%.4000s", req.tail)
				}
			default:
				fail("bad check")
			}
		case f[0] == "health" && len(f) >= 2:
			if want := strings.TrimPrefix(line, "health "); string(s.rt.Status().Health) != want {
				got := s.rt.Status().Health
				fail("got %s", got)
			}
		case f[0] == "prose-streak" && len(f) == 2:
			if got := s.rt.Status().ProseStreak; strconv.Itoa(got) != f[1] {
				fail("got %d", got)
			}
		case len(f) == 2:
			got := -1
			switch f[0] {
			case "cards", "advisories", "withheld":
				got = 0
				for _, c := range advisorEntries(s.sess) {
					withheld := strings.Contains(string(c.Details), `"withheld"`)
					if withheld && c.InContext {
						fail("a withheld note is in the model's context: %s", c.Details)
					}
					switch {
					case f[0] == "advisories" && !withheld,
						f[0] == "cards" && strings.Contains(string(c.Details), `"card"`),
						f[0] == "withheld" && withheld:
						got++
					}
				}
			case "steps":
				got = 0
				for _, e := range s.sess.Entries() {
					if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
						got++
					}
				}
			case "errors":
				s.mu.Lock()
				got = len(s.runErr)
				s.mu.Unlock()
			case "turns", "aborts":
				want := map[string]agent.EventType{"turns": agent.EventTurnStart, "aborts": agent.EventRequestAborted}[f[0]]
				got = 0
				s.mu.Lock()
				for _, ev := range s.events {
					if ev.Type == want {
						got++
					}
				}
				s.mu.Unlock()
			}
			if strconv.Itoa(got) != f[1] {
				fail("got %d", got)
			}
		default:
			fail("bad check")
		}
	}
}

// request is what the checks read of a request: its message count and
// every string in its messages, one per line; tail is the same of its
// last message.
type request struct {
	messages int
	text     string
	tail     string
}

func parseRequest(t *testing.T, body []byte) request {
	var v struct {
		Messages []any `json:"messages"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var sb strings.Builder
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			sb.WriteString(x)
			sb.WriteString("\n")
		case []any:
			for _, y := range x {
				walk(y)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	var tail string
	if n := len(v.Messages); n > 0 {
		walk(v.Messages[n-1])
		tail = sb.String()
		sb.Reset()
	}
	walk(v.Messages)
	return request{messages: len(v.Messages), text: sb.String(), tail: tail}
}
