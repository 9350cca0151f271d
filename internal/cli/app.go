package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/loopguard"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// app is one running agent and everything it was built from. Slash
// commands such as /new and /model replace the agent; the app keeps the
// rest.
type app struct {
	e        *env
	cwd      string
	project  string
	agentDir string
	settings *config.Settings
	registry *models.Registry
	manager  *session.Manager
	modelRef string
	// approval is the approval mode, config.ApprovalAuto or ApprovalAsk
	// (approvalMode).
	approval string
	// busy, when set, reports whether a turn is running (RPC mode runs
	// turns in the background); commands that change the session refuse
	// then.
	busy func() bool

	mu    sync.Mutex
	ag    *agent.Agent
	sess  *session.Session
	model *models.Resolved
	subs  []func(agent.Event)
	unsub func()
	// advOn is the session's advisor flag (--advisor, advisor.enabled,
	// /advisor on|off); advFlagRef the --advisor-model reference.
	advOn      bool
	advFlagRef string
	// advisorRes is the advisor's model; nil when none resolved.
	advisorRes *models.Resolved
	// approvals is the current session's approval mode; nil while tools
	// run unasked (approvalsFor).
	approvals *agent.Approvals
	// adv is the advisor of the current agent; nil when off.
	adv *supervise.AgentRun
	// fwd is the current agent's advisor hook.
	fwd *advisorhost.ForwardHook
	// advSpent is what advisors stopped so far spent, and by the model
	// that served it, for pricing.
	advSpent supervise.Spent
	// projectNotice says which of the user's guarded settings the
	// project's settings file changes, or holds back until the folder is
	// trusted; "" when none.
	projectNotice string
	// roster is the advisors of WATCHDOG.yml, read once (loadRoster);
	// notices are its warnings, for the user.
	roster  *config.Roster
	notices []string
	// warnings tell the user, once per kind, that supervision fails, on
	// stderr and in the agent's session.
	warnings *advisorhost.Warnings
	// fresh is the session this app created last; left with no entry,
	// it is removed instead of kept (release), so that a slash command,
	// a picker or a UI closed at once leaves no empty session behind.
	fresh *session.Session
	// prior and priorCost are what the session had spent before the
	// current agent was built on it (a resumed session's past), which the
	// status line adds to the agent's own.
	prior     llm.Usage
	priorCost float64
}

// appOptions say which session and model to start with.
type appOptions struct {
	model    string // a reference; "" = modelRoles.default
	thinking string // the model's thinking level; "" = the reference's
	cont     bool   // continue the latest session of cwd
	resume   string // resume a session by id, id prefix or path
	fork     bool   // with resume or cont: go on in a copy (--fork)
	modelsYM string
	advisor  bool   // run the advisor even if advisor.enabled is off
	advModel string // the advisor's model reference; "" = modelRoles.advisor
	approval string // --approval: ask, auto, or "" (approvalMode)
	ui       bool   // the terminal UI runs: tools.approval applies
	cwd      string // the working folder; "" = the process's
}

// withoutAKey ends the error of a vigil that finds no model it can use:
// what works with no key at all.
const withoutAKey = "Without a key: vigil demo (a scripted model), vigil review (zero-token detectors over this project's recorded sessions), vigil attach claude-code|codex|pi|omp (the advisor falls back to the zero-token rules reviewer), or a local model with auth: none in models.yml (docs/models.md)"

func newApp(e *env, o appOptions) (*app, error) {
	cwd := o.cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find the working folder: %w", err)
		}
		cwd = wd
	}
	a, err := newBaseApp(e, cwd, o.modelsYM)
	if err != nil {
		return nil, err
	}
	if a.approval, err = approvalMode(o.approval, o.ui, a.settings); err != nil {
		return nil, err
	}
	a.modelRef = o.model
	if a.modelRef == "" {
		ref, ok := a.settings.Role(config.RoleDefault)
		if ok {
			a.modelRef = ref.String()
		} else {
			res, why, err := a.registry.DefaultModel()
			if err != nil {
				return nil, fmt.Errorf("no model configured, and %w; or pass --model provider/model, or set modelRoles.default in %s. %s", err, config.UserFile(a.agentDir), withoutAKey)
			}
			a.modelRef = res.Ref().String()
			fmt.Fprintf(e.stderr, "vigil: no model configured; using %s (%s; vigil models lists the others). Choose with --model provider/model, or set modelRoles.default in %s\n", a.modelRef, why, config.UserFile(a.agentDir))
		}
	}
	if o.thinking != "" {
		if a.modelRef, err = withThinking(a.modelRef, o.thinking); err != nil {
			return nil, err
		}
	}
	a.setupAdvisor(o.advisor, o.advModel)
	var sess *session.Session
	switch {
	case o.resume != "":
		path := o.resume
		if !strings.HasSuffix(path, ".jsonl") {
			path, err = a.manager.Find(o.resume)
		}
		if err == nil {
			// An advisor's transcript is read-only: checked before Open,
			// which may repair (write) the file.
			err = refuseAdvisorTranscript(path)
		}
		if err == nil {
			sess, err = a.openSession(path, o.fork)
		}
	case o.cont:
		sess, err = a.continueSession(o.fork)
		if errors.Is(err, session.ErrNotFound) {
			sess, err = a.newSession()
		}
	case o.fork:
		err = errors.New("--fork needs the session to copy: --resume ID or --continue")
	default:
		sess, err = a.newSession()
	}
	if err != nil {
		return nil, lockedHint(err, o)
	}
	if err := a.build(sess, a.modelRef); err != nil {
		a.release(sess)
		return nil, err
	}
	return a, nil
}

// newSession creates a session in the working folder, which release
// removes if it is still empty then.
func (a *app) newSession() (*session.Session, error) {
	sess, err := a.manager.New(a.cwd)
	if err == nil {
		a.mu.Lock()
		a.fresh = sess
		a.mu.Unlock()
	}
	return sess, err
}

// release closes sess, and removes it when this app created it and
// nothing was written to it. It reports whether sess is kept.
func (a *app) release(sess *session.Session) bool {
	a.mu.Lock()
	fresh := a.fresh == sess
	a.mu.Unlock()
	if fresh && sess.Len() == 0 {
		if err := sess.Drop(); err != nil {
			fmt.Fprintln(a.e.stderr, "vigil:", err)
		}
		return false
	}
	if err := sess.Close(); err != nil {
		fmt.Fprintln(a.e.stderr, "vigil:", err)
	}
	return true
}

// withThinking is the model reference ref at thinking level level.
func withThinking(ref, level string) (string, error) {
	l, err := llm.ParseThinkingLevel(level)
	if err != nil {
		return "", fmt.Errorf("--thinking: %w", err)
	}
	r, err := llm.ParseRef(ref)
	if err != nil {
		return "", err
	}
	r.Thinking = l
	return r.String(), nil
}

// sessionSpend is what sess's replies have cost so far, in tokens and dollars
// (models the registry cannot price cost nothing).
func (a *app) sessionSpend(sess *session.Session) (llm.Usage, float64) {
	price := registryPricer(a.registry)
	var total llm.Usage
	var cost float64
	for ref, u := range sess.UsageByModel() {
		total = total.Add(u)
		if p, ok := price(ref); ok {
			cost += p.Cost(u)
		}
	}
	return total, cost
}

// newBaseApp is what every app has, with or without an agent of its own:
// the settings and models for the folder cwd (modelsFile "" is the agent
// folder's models.yml), and the sessions.
func newBaseApp(e *env, cwd, modelsFile string) (*app, error) {
	agentDir, err := e.agentDir()
	if err != nil {
		return nil, err
	}
	a := &app{e: e, cwd: cwd, agentDir: agentDir, project: contextfiles.ProjectRoot(cwd)}
	a.warnings = &advisorhost.Warnings{Log: e.stderr, Agent: a.agent}
	var project *config.ProjectOverrides
	a.settings, project, err = config.LoadProject(config.Options{AgentDir: agentDir, ProjectDir: a.project})
	if err != nil {
		return nil, err
	}
	// What the folder's settings change of the user's, applied or held
	// back: always said (runCmd, the UI and the sidecar say it), a fleet
	// URL without its credentials.
	a.projectNotice = fleet.HideCredentials(project.Notice())
	a.registry, err = e.registry(modelsFile)
	if err != nil {
		return nil, err
	}
	// One writer per session file: a second vigil on it is told to --fork.
	a.manager = session.NewManager(filepath.Join(agentDir, "sessions"), session.Options{Lock: true})
	return a, nil
}

// build makes the agent for sess and model ref, replacing the current one.
func (a *app) build(sess *session.Session, ref string) error {
	res, err := a.registry.Resolve(ref)
	if err != nil {
		return err
	}
	model, err := res.Open()
	if err != nil {
		return err
	}
	toolOpts := tools.Options{
		Roots:        []string{a.project, a.cwd},
		Cwd:          a.cwd,
		ArtifactsDir: sess.ArtifactsDir(),
		BashTimeout:  a.settings.Tools.Bash.Timeout(),
		MaxLines:     a.settings.Tools.Output.MaxLines,
		MaxBytes:     a.settings.Tools.Output.MaxBytes,

		AllowOutsideRoots: a.settings.Tools.AllowOutsideRoots,
	}
	ts, err := tools.NewSession(toolOpts)
	if err != nil {
		return err
	}
	// Each subagent gets a tool session of its own, so files one has seen
	// say nothing about the other.
	subTools := func() ([]tools.Tool, error) {
		sub, err := tools.NewSession(toolOpts)
		if err != nil {
			return nil, err
		}
		return sub.Tools(), nil
	}
	system, err := a.systemPrompt()
	if err != nil {
		return err
	}
	// The advisor's hook is always there, so /advisor on can attach one
	// to a running agent.
	fwd := &advisorhost.ForwardHook{}
	hooks := []agent.Hook{fwd}
	if n := a.settings.Tools.LoopGuard; n > 0 {
		hooks = append(hooks, loopguard.New(n))
	}
	approvals := a.approvalsFor(sess)
	// The settings' compaction keys are the agent's CompactionOptions field
	// for field: one added to either and not the other fails to compile here.
	ag, err := agent.New(agent.Options{
		Model:      model,
		Info:       res.Info,
		Thinking:   res.Thinking,
		System:     system,
		Session:    sess,
		Tools:      append(ts.Tools(), a.advisorTools()...),
		Compaction: agent.CompactionOptions(a.settings.Compaction),
		Subagents:  a.subagentConfig(subTools),
		Hooks:      hooks,
		Approvals:  approvals,
	})
	if err != nil {
		return err
	}
	prior, priorCost := a.sessionSpend(sess)
	adv, err := a.startAdvisor(ag, sess, fwd, startPoint(sess))
	if err != nil {
		return err
	}
	a.mu.Lock()
	old := a.adv
	a.adv = nil
	a.mu.Unlock()
	// Stopped outside a.mu: a run the old advisor resumed publishes
	// through it.
	a.addSpent(old.Stop())
	a.mu.Lock()
	if a.unsub != nil {
		a.unsub()
	}
	prev := a.sess
	a.ag, a.sess, a.model, a.adv, a.fwd = ag, sess, res, adv, fwd
	a.approvals = approvals
	a.prior, a.priorCost = prior, priorCost
	a.unsub = ag.Subscribe(a.publish)
	a.mu.Unlock()
	if prev != nil && prev != sess {
		a.release(prev)
	}
	return nil
}

// publish forwards an agent event to every subscriber of the app, which
// outlive agent swaps.
func (a *app) publish(ev agent.Event) {
	a.mu.Lock()
	subs := a.subs
	a.mu.Unlock()
	for _, fn := range subs {
		fn(ev)
	}
}

// Subscribe calls fn with every event of the app's agents, across agent
// swaps.
func (a *app) Subscribe(fn func(agent.Event)) {
	a.mu.Lock()
	a.subs = append(a.subs, fn)
	a.mu.Unlock()
}

func (a *app) agent() *agent.Agent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ag
}

func (a *app) session() *session.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sess
}

func (a *app) close() {
	a.mu.Lock()
	adv := a.adv
	a.adv = nil
	a.mu.Unlock()
	// Stopped before the session closes, and outside a.mu: a run the
	// advisor resumed publishes through it.
	adv.Stop()
	a.mu.Lock()
	if a.unsub != nil {
		a.unsub()
	}
	sess := a.sess
	a.mu.Unlock()
	if sess != nil {
		a.release(sess)
	}
}

// basePrompt is the agent's own instructions; context files follow it.
const basePrompt = `You are vigil, a careful coding agent working in the user's repository.
Use the tools to read before you change, make the smallest change that does what was asked,
run the relevant tests, and say plainly what you did and what you did not do.`

func (a *app) systemPrompt() (string, error) {
	home, _ := a.e.lookupEnv("HOME")
	files, err := contextfiles.Discover(contextfiles.Options{
		Names:    contextfiles.AgentsNames(),
		AgentDir: a.agentDir,
		Dir:      a.cwd,
		Home:     home,
		Logf:     func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...) },
	})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(basePrompt)
	fmt.Fprintf(&b, "\n\nWorking folder: %s\nToday: %s\n", a.cwd, time.Now().Format("2006-01-02"))
	if r := contextfiles.Render(files); r != "" {
		b.WriteString("\n")
		b.WriteString(r)
	}
	return b.String(), nil
}

// answerSince returns the text of the last assistant message among the
// entries appended after the first n.
func answerSince(s *session.Session, n int) string {
	entries, _ := s.Since(n)
	for i := len(entries) - 1; i >= 0; i-- {
		if m, ok := entries[i].Body.(*session.Message); ok && m.Message.Role == "assistant" {
			if text := m.Message.Text(); text != "" {
				return text
			}
		}
	}
	return ""
}

// promptOrCommand runs one prompt on the current agent, or the slash
// command it is (print and JSON mode).
func (a *app) promptOrCommand(ctx context.Context, text string) error {
	if strings.HasPrefix(text, "/") {
		out, err := a.Command(ctx, text)
		if out != "" {
			fmt.Fprintln(a.e.stderr, out)
		}
		return err
	}
	return a.agent().Prompt(ctx, text)
}
