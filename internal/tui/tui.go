package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/commands"
	"github.com/vigil-dev/vigil/session"
)

// App is what the UI drives: the current agent, its session and its
// advisor. Each call goes to the agent current at that moment (/new,
// /model and /resume replace it).
type App interface {
	// Prompt runs a turn on message; Resume continues a stopped run with
	// message ("" continues with agent.ContinueText).
	Prompt(ctx context.Context, message string) error
	Resume(ctx context.Context, message string) error
	// Steer queues message for the next step boundary; FollowUp for the
	// end of the turn.
	Steer(message string, interrupt bool)
	FollowUp(message string)
	// Abort stops the running turn at once, as the user's Esc.
	Abort()
	// Shell runs a command the user typed as !command, with the agent's
	// bash tool and without the model, and records it in the session for
	// the model to read next; ctx ending stops it.
	Shell(ctx context.Context, command string) error
	// Compact summarises older history now.
	Compact(ctx context.Context, instructions string) error
	// Command runs any other slash command line, "/name args".
	Command(ctx context.Context, line string) (string, error)
	// State is the current agent's state.
	State() agent.State
	// Entries is the current branch of the session, root first.
	Entries() []session.Entry
	// Subscribe calls fn with every agent event, across agent swaps.
	Subscribe(fn func(agent.Event))
	// Status is what the status line shows.
	Status() Status
	// AdvisorStatus is /advisor status's text; AdvisorTranscript is the
	// advisor's transcript (raw: the messages as its model saw them).
	AdvisorStatus() string
	AdvisorTranscript(raw bool) string
	// Models lists the model references /model offers.
	Models() []string
	// Sessions lists this folder's sessions, most recent first, for
	// /resume.
	Sessions() ([]SessionInfo, error)
	// SwitchSession opens the session id (or file) and continues in it.
	SwitchSession(id string) error
	// Answer answers the approval request of a tool call (the approval
	// mode: y, a, n).
	Answer(callID string, ap agent.Approval) error
}

// Status is the status line's facts about the agent and its advisor.
type Status struct {
	// Model is the agent's model reference.
	Model string
	// Input, Output and CacheRead are the agent's tokens so far; Cost is
	// their price in dollars.
	Input, Output, CacheRead int64
	Cost                     float64
	// Context and Window are the agent's context size and its model's
	// window in tokens (0: unknown).
	Context, Window int64
	// Advisor says what the advisor is; zero when off.
	Advisor AdvisorStatus
}

// AdvisorStatus is the status line's facts about the advisor.
type AdvisorStatus struct {
	// On says the advisor runs; Model names its model ("rules" for the
	// zero-token detectors).
	On    bool
	Model string
	// Reviewing says a review is in flight or waiting; Backlog counts the
	// steps not reviewed yet.
	Reviewing bool
	Backlog   int
	// Reviews counts completed reviews; Cost their price in dollars.
	Reviews int
	Cost    float64
	// Context and Window are the advisor's own context size and window.
	Context, Window int64
	// Warning is what the user must know about supervision ("": nothing),
	// such as an advisor that answers in prose and never advises.
	Warning string
}

// SessionInfo is one session /resume offers.
type SessionInfo struct {
	ID, File string
	// Title is its first prompt, or "" when it has none.
	Title string
	// Modified is when it last changed.
	Modified time.Time
	// Cost is what it spent in dollars, its subagents and advisors
	// included.
	Cost float64
	// Current says it is the session open now.
	Current bool
}

// Options configure the UI.
type Options struct {
	// Prompt, when set, is sent as soon as the UI opens.
	Prompt string
	// PickSession opens the /resume picker at start.
	PickSession bool
	// Notices are shown first in the transcript: what the user must know
	// before starting (the folder's settings that override theirs).
	Notices []string
	// Approval is the approval mode, for the first screen and the status
	// line to say, with the risk of running tools unasked: "ask" (bash,
	// write and edit wait for the user's y, a or n) or "auto" (they run
	// unasked); "" says nothing.
	Approval string
	// Inline draws the UI in the terminal's normal screen, printing the
	// transcript into its scrollback as it is written, where it stays
	// after the UI exits, instead of taking the whole (alternate) screen.
	Inline bool
	// Intro are lines of the UI's own shown first, before the notices
	// (the demo says its models are scripted).
	Intro []string
	// Cwd is the folder @ completes files from.
	Cwd string
	// Commands is the slash-command registry /help and completion use.
	Commands *commands.Registry
	// In and Out are the terminal; Env its environment (TERM, NO_COLOR, …).
	In  io.Reader
	Out io.Writer
	Env []string
	// Clipboard copies text when OSC 52 may not reach the clipboard;
	// nil uses [SystemClipboard].
	Clipboard func(text string) (how string, err error)
}

// ErrNotTerminal is returned by [Run] when the input or output is not a
// terminal.
var ErrNotTerminal = errors.New("not a terminal")

// IsTerminal reports whether f is a terminal: a file the terminal
// ioctls answer on, so that a character device such as /dev/null is not.
func IsTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}

// Run opens the UI on app and returns when the user quits or ctx ends.
func Run(ctx context.Context, app App, o Options) error {
	if !IsTerminal(o.In) || !IsTerminal(o.Out) {
		return fmt.Errorf("the terminal UI needs a terminal on stdin and stdout: %w; run a prompt with vigil -p \"PROMPT\", or drive the agent with --mode rpc (docs/rpc.md)", ErrNotTerminal)
	}
	m := New(app, o)
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out)}
	if o.Env != nil {
		opts = append(opts, tea.WithEnvironment(o.Env))
	}
	p := tea.NewProgram(m, opts...)
	m.send = p.Send
	pump := newPump(p.Send)
	app.Subscribe(pump.push)
	go pump.run(ctx)
	defer pump.stop()
	_, err := p.Run()
	m.abortTurn()
	m.wait()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}
