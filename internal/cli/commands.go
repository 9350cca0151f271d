package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// slashCommand is one command a user (or an RPC client) can run by name.
// Every mode shares the same registry.
type slashCommand struct {
	name string
	args string // usage of the arguments, for /help
	help string
	// idleOnly commands change the session or the agent, so they are
	// refused while a turn runs.
	idleOnly bool
	run      func(ctx context.Context, a *app, args string) (string, error)
}

// slashCommands returns the registry, in the order /help lists it.
func slashCommands() []slashCommand {
	return []slashCommand{
		{"help", "", "list the commands", false, cmdHelp},
		{"compact", "[instructions]", "summarise older history now", true, cmdCompact},
		{"new", "", "start a new session in this folder", true, cmdNew},
		{"branch", "ENTRY_ID", "continue from an earlier entry; later entries stay in the file", true, cmdBranch},
		{"fork", "[ENTRY_ID]", "copy this branch (up to an entry) into a new session and switch to it", true, cmdFork},
		{"model", "[REF]", "show or switch the model (provider/model[:thinking])", false, cmdModel},
		{"session", "", "show the session file and id", false, cmdSession},
		{"advisor", "[on|off|status|dump [raw]]", "toggle the advisor (saved in your settings), or show its status or transcript", false, cmdAdvisor},
	}
}

// command runs "/name args".
func (a *app) command(ctx context.Context, line string) (string, error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	cmds := slashCommands()
	i := slices.IndexFunc(cmds, func(c slashCommand) bool { return c.name == name })
	if i < 0 {
		return "", fmt.Errorf("unknown command /%s (try /help)", name)
	}
	args = strings.TrimSpace(args)
	// /model with no argument only reads; switching is idle-only.
	if (cmds[i].idleOnly || (name == "model" && args != "")) && a.busy != nil && a.busy() {
		return "", fmt.Errorf("/%s: a turn is running; wait for idle or abort it first", name)
	}
	return cmds[i].run(ctx, a, args)
}

func cmdHelp(_ context.Context, _ *app, _ string) (string, error) {
	var b strings.Builder
	for _, c := range slashCommands() {
		fmt.Fprintf(&b, "/%s %s\t%s\n", c.name, c.args, c.help)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func cmdCompact(ctx context.Context, a *app, args string) (string, error) {
	if err := a.agent().Compact(ctx, args); err != nil {
		return "", err
	}
	return "compacted", nil
}

func cmdNew(_ context.Context, a *app, _ string) (string, error) {
	sess, err := a.manager.New(a.cwd)
	if err != nil {
		return "", err
	}
	if err := a.build(sess, a.modelRef); err != nil {
		sess.Close()
		return "", err
	}
	return "new session " + sess.ID(), nil
}

func cmdBranch(_ context.Context, a *app, args string) (string, error) {
	if args == "" {
		return "", fmt.Errorf("/branch needs an entry id")
	}
	if err := a.agent().BranchFrom(args); err != nil {
		return "", err
	}
	return "branched from " + args, nil
}

func cmdFork(_ context.Context, a *app, args string) (string, error) {
	src := a.session()
	id := args
	if id == "" {
		id = src.Leaf()
	}
	sess, err := a.manager.Fork(src, id)
	if err != nil {
		return "", err
	}
	if err := a.build(sess, a.modelRef); err != nil {
		sess.Close()
		return "", err
	}
	return "forked into " + sess.ID() + " (" + sess.File() + ")", nil
}

func cmdModel(_ context.Context, a *app, args string) (string, error) {
	if args == "" {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.model.Ref().String(), nil
	}
	if err := a.build(a.session(), args); err != nil {
		return "", err
	}
	a.modelRef = args
	return "model " + args, nil
}

func cmdSession(_ context.Context, a *app, _ string) (string, error) {
	s := a.session()
	return s.ID() + " " + s.File(), nil
}
