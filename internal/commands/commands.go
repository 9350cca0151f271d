package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Target is what the commands act on: the running agent, its session and
// its advisor.
type Target interface {
	// Busy reports whether a turn is running.
	Busy() bool
	// Compact summarises older history now, following instructions ("":
	// none).
	Compact(ctx context.Context, instructions string) error
	// NewSession starts a new session in the working folder and switches
	// to it, returning its id.
	NewSession() (id string, err error)
	// Branch continues from an earlier entry; later entries stay in the
	// file.
	Branch(entryID string) error
	// Fork copies the current branch up to entryID ("": its leaf) into a
	// new session, switches to it and returns its id and file.
	Fork(entryID string) (id, file string, err error)
	// Model is the reference of the model the agent runs on.
	Model() string
	// SetModel switches the agent to the model ref (provider/model[:thinking]).
	SetModel(ref string) error
	// Session is the id and file of the current session.
	Session() (id, file string)
	// AdvisorOn reports whether the advisor is on for this session.
	AdvisorOn() bool
	// SetAdvisor turns the advisor on or off (and saves the setting),
	// returning what to tell the user.
	SetAdvisor(on bool) (string, error)
	// AdvisorStatus is the advisor's state, model, context use and spend.
	AdvisorStatus() string
	// AdvisorTranscript is the advisor's transcript: compact, or raw (the
	// messages as its model saw them).
	AdvisorTranscript(raw bool) string
	// AdvisorRoster lists the advisors of the WATCHDOG.yml roster with
	// each one's state; "" when none is declared.
	AdvisorRoster() string
	// SetAdvisorMember turns one advisor of the roster on or off (and
	// saves the setting), returning what to tell the user.
	SetAdvisorMember(name string, on bool) (string, error)
}

// Command is one command a user (or an RPC client) can run by name.
type Command struct {
	Name string
	// Args is the usage of its arguments, for /help.
	Args string
	Help string
	// IdleOnly commands change the session or the agent, so they are
	// refused while a turn runs; IdleWithArgs ones only when given
	// arguments (without, they only read).
	IdleOnly, IdleWithArgs bool
	// Run does the command with its arguments (spaces trimmed) and
	// returns what to show.
	Run func(ctx context.Context, t Target, args string) (string, error)
}

// Registry is a list of commands, in the order /help lists them.
type Registry struct {
	cmds []Command
}

// New returns vigil's commands.
func New() *Registry {
	r := &Registry{}
	r.cmds = []Command{
		{Name: "help", Help: "list the commands", Run: func(context.Context, Target, string) (string, error) { return r.Help(), nil }},
		{Name: "compact", Args: "[instructions]", Help: "summarise older history now", IdleOnly: true, Run: compact},
		{Name: "new", Help: "start a new session in this folder", IdleOnly: true, Run: newSession},
		{Name: "branch", Args: "ENTRY_ID", Help: "continue from an earlier entry; later entries stay in the file", IdleOnly: true, Run: branch},
		{Name: "fork", Args: "[ENTRY_ID]", Help: "copy this branch (up to an entry) into a new session and switch to it", IdleOnly: true, Run: fork},
		{Name: "model", Args: "[REF]", Help: "show or switch the model (provider/model[:thinking])", IdleWithArgs: true, Run: model},
		{Name: "session", Help: "show the session file and id", Run: session},
		{Name: "advisor", Args: "[on|off [NAME]|list|status|dump [raw]]", Help: "toggle the advisor or one of the roster's (saved in your settings), list the roster, or show its status or transcript", Run: advisor},
	}
	return r
}

// Commands returns the commands, in /help's order.
func (r *Registry) Commands() []Command {
	return append([]Command(nil), r.cmds...)
}

// Lookup returns the command called name (without its slash).
func (r *Registry) Lookup(name string) (Command, bool) {
	for _, c := range r.cmds {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Parse splits "/name args" into the name (without its slash) and the
// arguments, spaces around both trimmed.
func Parse(line string) (name, args string) {
	name, args, _ = strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	return name, strings.TrimSpace(args)
}

// Run runs the command line "/name args" on t, refusing one that would
// change the session while t is busy.
func (r *Registry) Run(ctx context.Context, t Target, line string) (string, error) {
	name, args := Parse(line)
	c, ok := r.Lookup(name)
	if !ok {
		return "", fmt.Errorf("unknown command /%s (try /help)", name)
	}
	if (c.IdleOnly || (c.IdleWithArgs && args != "")) && t.Busy() {
		return "", fmt.Errorf("/%s: a turn is running; wait for idle or abort it first", name)
	}
	return c.Run(ctx, t, args)
}

// Help is /help's text: one line per command, its usage and what it does.
func (r *Registry) Help() string {
	var b strings.Builder
	for _, c := range r.cmds {
		fmt.Fprintf(&b, "/%s %s\t%s\n", c.Name, c.Args, c.Help)
	}
	return strings.TrimRight(b.String(), "\n")
}

func compact(ctx context.Context, t Target, args string) (string, error) {
	if err := t.Compact(ctx, args); err != nil {
		return "", err
	}
	return "compacted", nil
}

func newSession(_ context.Context, t Target, _ string) (string, error) {
	id, err := t.NewSession()
	if err != nil {
		return "", err
	}
	return "new session " + id, nil
}

func branch(_ context.Context, t Target, args string) (string, error) {
	if args == "" {
		return "", errors.New("/branch needs an entry id")
	}
	if err := t.Branch(args); err != nil {
		return "", err
	}
	return "branched from " + args, nil
}

func fork(_ context.Context, t Target, args string) (string, error) {
	id, file, err := t.Fork(args)
	if err != nil {
		return "", err
	}
	return "forked into " + id + " (" + file + ")", nil
}

func model(_ context.Context, t Target, args string) (string, error) {
	if args == "" {
		return t.Model(), nil
	}
	if err := t.SetModel(args); err != nil {
		return "", err
	}
	return "model " + args, nil
}

func session(_ context.Context, t Target, _ string) (string, error) {
	id, file := t.Session()
	return id + " " + file, nil
}

// advisorUsage is /advisor's answer to a verb it does not know.
const advisorUsage = "usage: /advisor [on|off [NAME]|list|status|dump [raw]]"

func advisor(_ context.Context, t Target, args string) (string, error) {
	verb, rest, _ := strings.Cut(args, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(verb) {
	case "":
		if r := t.AdvisorRoster(); r != "" {
			return r, nil // a roster: list it (/advisor toggle toggles)
		}
		return t.SetAdvisor(!t.AdvisorOn())
	case "toggle":
		return t.SetAdvisor(!t.AdvisorOn())
	case "list":
		if r := t.AdvisorRoster(); r != "" {
			return r, nil
		}
		return "No roster: WATCHDOG.yml declares no advisors, so the single advisor (modelRoles.advisor) is the roster of one.", nil
	case "on", "off":
		if rest != "" {
			return t.SetAdvisorMember(rest, strings.EqualFold(verb, "on"))
		}
		return t.SetAdvisor(strings.EqualFold(verb, "on"))
	case "status":
		return t.AdvisorStatus(), nil
	case "dump":
		return t.AdvisorTranscript(strings.EqualFold(strings.TrimSpace(rest), "raw")), nil
	default:
		return "", errors.New(advisorUsage)
	}
}
