package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/hook"
	"github.com/vigil-dev/vigil/internal/hookwire"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/sidecar"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// hookCmd is `vigil hook AGENT`, the command an attached agent runs for
// every hook event (docs/attach.md).
type hookCmd struct {
	Agent string `arg:"" enum:"claude-code,codex,pi,omp" help:"The agent whose hook event is on stdin: claude-code, codex, pi or omp."`
}

// Run handles the event and always succeeds: an attached agent must
// never stall or fail because of vigil, so every problem is logged to
// the sidecars' folder instead (hook.log).
func (c *hookCmd) Run(e *env) error {
	dir, err := sidecar.RuntimeDir(e.lookupEnv)
	if err != nil {
		hookwire.Discard(e.stdin)
		return nil // nowhere to log: fail open silently
	}
	err = hook.Run(e.ctx, hook.Options{
		Agent:  c.Agent,
		Stdin:  e.stdin,
		Stdout: e.stdout,
		Dir:    dir,
		// The agent started this hook (perhaps through a shell): the
		// sidecar it starts stops once that process has gone.
		Spawn: spawnSidecar(dir, c.Agent, sidecar.AgentOf(os.Getppid())),
		// The HTTP hooks (vigil attach --http) need vigil hookd: the
		// command hooks at the start of a session and of each prompt
		// make sure it runs.
		Before: func(ctx context.Context, in sidecar.Input) error {
			if in.HookEventName != sidecar.EventSessionStart && in.HookEventName != sidecar.EventUserPromptSubmit {
				return nil
			}
			if err := ensureHookd(ctx, e, dir); err != nil {
				return fmt.Errorf("start vigil hookd: %w", err)
			}
			return nil
		},
	})
	if err != nil {
		hook.Log(dir, c.Agent, err)
		if errors.Is(err, hookwire.ErrStdinOpen) {
			fmt.Fprintf(e.stderr, "vigil hook %s: %s (failed open: the agent goes on)\n", c.Agent, sidecar.LogText(err.Error()))
		}
	}
	return nil
}

// spawnSidecar starts `vigil sidecar` for a session in its own session
// (setsid), detached from the hook's streams (the agent waits for those
// to close), and waits until it listens or gives up. The sidecar
// watches the agent's process proc, when it is set, and stops once that
// has gone.
func spawnSidecar(dir sidecar.Dir, agent string, proc sidecar.Proc) hook.Spawner {
	return func(ctx context.Context, key sidecar.Key, in sidecar.Input) error {
		start := in.HookEventName
		if in.HookEventName == sidecar.EventSessionStart && in.Source != "" {
			start = in.Source
		}
		cwd := in.Cwd
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		args := []string{"sidecar", agent, "--session", in.SessionID, "--transcript", in.Transcript(), "--cwd", cwd, "--start", start}
		if proc.PID > 0 {
			args = append(args, "--agent-pid", strconv.Itoa(proc.PID), "--agent-start", strconv.FormatUint(proc.Start, 10))
		}
		return sidecar.SpawnDetached(ctx, dir.Log(key), cwd, args...)
	}
}

// sidecarMemoryLimit is the sidecar's soft memory limit (GOMEMLIMIT
// overrides it).
const sidecarMemoryLimit = 16 << 20

// sidecarCmd is `vigil sidecar AGENT`, started by the first hook of a
// watched session: it follows the agent's transcript, runs the advisor
// and answers the hooks (docs/attach.md). Not for people to run.
type sidecarCmd struct {
	Agent      string        `arg:"" enum:"claude-code,codex,pi,omp" help:"The agent it watches."`
	Session    string        `required:"" help:"The agent's session id."`
	Transcript string        `help:"The agent's transcript file (it may not exist yet)."`
	Cwd        string        `required:"" help:"The agent's working folder."`
	Start      string        `default:"startup" help:"What started it: startup (read the transcript from its beginning) or another event (prime from what the agent sees now)."`
	ReadyFD    int           `name:"ready-fd" help:"A file descriptor to write one byte to once it listens."`
	Idle       time.Duration `default:"30m" help:"Stop after this long without a hook."`
	Poll       time.Duration `default:"250ms" help:"Read the transcript this often between hooks."`
	AgentPID   int           `name:"agent-pid" help:"The agent's process: stop once it has gone and the transcript is quiet (0: watch none)."`
	AgentStart uint64        `name:"agent-start" help:"The agent process's start time (/proc/PID/stat field 22), so that another process given its id is not taken for it."`
}

// agentWatch is the watch of the agent's process the flags ask for.
func (c *sidecarCmd) agentWatch() sidecar.AgentWatch {
	return sidecar.AgentWatch{Proc: sidecar.Proc{PID: c.AgentPID, Start: c.AgentStart}}
}

func (c *sidecarCmd) Run(e *env) error {
	ready := sidecar.NewReadyPipe(c.ReadyFD)
	defer ready.Close()
	logger := log.New(e.stderr, fmt.Sprintf("vigil sidecar %s %s: ", c.Agent, sidecar.LogText(c.Session)), log.LstdFlags|log.LUTC)
	// The event's paths and ids reach the log: one line each, escaped.
	logf := func(format string, args ...any) { logger.Print(sidecar.LogText(fmt.Sprintf(format, args...))) }
	dir, err := sidecar.RuntimeDir(e.lookupEnv)
	if err != nil {
		return err
	}
	cwd, err := filepath.Abs(c.Cwd)
	if err != nil {
		return err
	}
	info := sidecar.Info{Key: sidecar.Key{Agent: c.Agent, Session: c.Session}, Transcript: c.Transcript, Cwd: cwd}
	// The lock first: the first hooks of a session may start several
	// sidecars at once, and only the one that serves may create the
	// session's files (two would each make their own, or fail on the
	// other's advisor transcript).
	lock, err := dir.TakeLock(info.Key)
	if errors.Is(err, sidecar.ErrRunning) {
		logf("another sidecar serves this session: leaving it to that one")
		dir.AwaitServing(e.ctx, info.Key, sidecar.SpawnReadyWait*2/3)
		ready.Write([]byte{1}) // the hook that started this one finds that one
		return nil
	}
	if err != nil {
		return err
	}
	defer lock.Close()
	w, err := c.watch(e, cwd, info.Key, logf)
	if err != nil {
		return c.serveDisabled(e, dir, info, lock, ready, err, logf)
	}
	defer w.sess.Close()
	defer w.adv.Stop() // before the session closes: it records there
	info.VigilSession, info.Reviewer = w.sess.File(), w.reviewer
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	w.adv.Start()
	// A sidecar lives as long as its session: give back the pages of
	// vigil's binary that starting touched and watching never needs, and
	// collect garbage before the heap doubles (a soft limit: the GC works
	// harder near it, nothing fails above it).
	sidecar.ShedStartPages()
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(sidecarMemoryLimit)
	}
	logf("watching %s with %s", c.Transcript, w.reviewer)
	err = sidecar.Serve(ctx, w.sc, sidecar.ServeOptions{
		Dir:          dir,
		Info:         info,
		Ready:        ready,
		IdleTimeout:  c.Idle,
		PollInterval: c.Poll,
		Agent:        c.agentWatch(),
		Lock:         lock,
	})
	st := w.sc.Stats()
	logf("stopped: %d hooks, %d steps, %d notes delivered (%d as Stop blocks), %d withheld", st.Hooks, st.Steps, st.Delivered, st.Blocks, st.Withheld)
	return err
}

// watched is what a sidecar runs over its session: the sidecar, its
// advisor and the session vigil keeps for the watched one.
type watched struct {
	sc       *sidecar.Sidecar
	adv      supervise.Advisor
	sess     *session.Session
	reviewer string
}

// watch loads the settings of the agent's folder cwd and makes the
// sidecar and advisor that watch the session.
func (c *sidecarCmd) watch(e *env, cwd string, key sidecar.Key, logf func(string, ...any)) (*watched, error) {
	logger := log.New(logWriter(logf), "", 0)
	a, err := newAdvisorApp(e, cwd)
	if err != nil {
		return nil, err
	}
	for _, n := range a.userNotices() {
		logf("%s", n)
	}
	cfg := a.sup()
	res, periodic, reviewer := cfg.SidecarReviewer(logf)
	sess, err := a.manager.AttachedLog(cwd, c.Agent, c.Session, c.Transcript, logf)
	if err != nil {
		return nil, err
	}
	host := sidecar.NewHost()
	adv, ph, err := c.advisor(cfg, host, sess, res, periodic, logger)
	if err != nil {
		sess.Close()
		return nil, err
	}
	format := followFormat(c.Agent)
	sc := sidecar.New(sidecar.Options{
		Key:        key,
		Host:       host,
		Advisor:    adv,
		Periodic:   ph,
		Transcript: c.Transcript,
		Follow:     func(p string) sidecar.Follower { return transcript.Follow(p, format) },
		// As in vigil's agent: in the periodic mode a boundary waits for
		// a review just forked.
		SyncBacklog: adv.SyncBacklog(),
		SyncTimeout: a.settings.Advisor.SyncTimeout(),
		StopWait:    a.settings.Advisor.SyncTimeout(),
		Logf:        logf,
	})
	return &watched{sc: sc, adv: adv, sess: sess, reviewer: reviewer}, nil
}

// logWriter is an io.Writer that logs each write through logf, for the
// code that wants a *log.Logger.
type logWriter func(string, ...any)

func (l logWriter) Write(b []byte) (int, error) {
	l("%s", strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// serveDisabled serves a sidecar that cannot advise because setting it
// up failed (why), until the session ends, it idles, or one of its
// settings files changes ([sidecar.ServeDisabled]).
func (c *sidecarCmd) serveDisabled(e *env, dir sidecar.Dir, info sidecar.Info, lock *sidecar.SessionLock, ready io.WriteCloser, why error, logf func(string, ...any)) error {
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return sidecar.ServeDisabled(ctx, why, c.settingsFiles(e, info.Cwd), sidecar.ServeOptions{Dir: dir, Info: info, Ready: ready, IdleTimeout: c.Idle, Agent: c.agentWatch(), Lock: lock}, logf)
}

// settingsFiles are the files a sidecar's settings come from.
func (c *sidecarCmd) settingsFiles(e *env, cwd string) []string {
	files := []string{config.ProjectFile(contextfiles.ProjectRoot(cwd))}
	if agentDir, err := e.agentDir(); err == nil {
		files = append(files, config.UserFile(agentDir), filepath.Join(agentDir, "models.yml"))
	}
	return files
}

// advisor makes the sidecar's advisor over host, recording in sess's
// artifacts folder, and the periodic host the sidecar feeds (nil but in
// the periodic mode).
func (c *sidecarCmd) advisor(cfg *supervise.Config, host *sidecar.Host, sess *session.Session, res *models.Resolved, periodic bool, logger *log.Logger) (supervise.Advisor, *sidecar.PeriodicHost, error) {
	start := advisor.StartPrimed
	if c.Start == "startup" {
		start = advisor.StartAtBeginning
	}
	h := supervise.Host{
		Host: host, Session: sess, SessionID: c.Session, Start: start, Logf: logger.Printf,
		FleetDown: func(err error) {
			logger.Printf("warning: advisor: %v; the session is not reviewed until the fleet answers (tried again)", err)
		},
	}
	var ph *sidecar.PeriodicHost
	if periodic {
		// The periodic mode forks the agent's conversation onto a model;
		// vigil cannot call the attached agent's own, so the advisor's
		// model answers (and the roster's advisors each fork onto their
		// own model, or onto the advisor model's).
		model, err := res.Open()
		if err != nil {
			return nil, nil, fmt.Errorf("advisor model: %w", err)
		}
		ph = &sidecar.PeriodicHost{
			Host:           host,
			Model:          model,
			Ref:            res.Ref(),
			AllowInjection: cfg.Settings.Advisor.AllowPromptInjection,
			Redactor:       cfg.Redactor,
		}
		h.Fork, h.ForkRef, h.ForkPrice = ph, res.Ref, func() llm.Price { return res.Info.Price }
	}
	adv, err := supervise.New(cfg, h, res)
	if err != nil {
		return nil, nil, err
	}
	return adv, ph, nil
}

// newAdvisorApp is the app of an advisor with no agent of its own: the
// advisor is on whatever advisor.enabled says.
func newAdvisorApp(e *env, cwd string) (*app, error) {
	a, err := newBaseApp(e, cwd, "")
	if err != nil {
		return nil, err
	}
	a.advOn = true
	return a, nil
}
