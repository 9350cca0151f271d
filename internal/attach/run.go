package attach

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// Request is one `vigil attach` or `vigil detach` with its files found
// (docs/attach.md): [Request.Attach] and [Request.Detach] plan the
// edits, write them (or, with DryRun, print their diffs) and say what
// they did on Out, and warnings on Warn.
type Request struct {
	Agent Agent
	// File is the hooks file (Claude Code, Codex) or the extension's (pi,
	// omp).
	File string
	// Scope is File's scope for an extension: "" for one --file names.
	Scope Scope
	// User is --user: for Claude Code, vigil's MCP server goes to the top
	// level of ~/.claude.json, not under the project.
	User bool
	// Home is the user's home folder.
	Home string
	// Binary is the binary the hooks run (attach).
	Binary string
	// HookURL is vigil hookd's URL for Claude Code's HTTP hooks; "" for
	// command hooks.
	HookURL string
	// NewHookd writes hookd.json, HookdFile, when there is none yet; nil
	// when there is one.
	NewHookd  func() error
	HookdFile string
	// NoMCP leaves vigil's MCP server out (attach).
	NoMCP bool
	// OldFile is the extension file of the working folder's project,
	// where an older vigil's attach wrote it by default, when it is not
	// the user's; UserFile is the user's extension file.
	OldFile, UserFile string
	// PiAgentDir is pi's agent folder, and Path $PATH: where attach
	// looks for what may keep the agent from loading the extension.
	PiAgentDir, Path string
	DryRun           bool
	Out, Warn        io.Writer
}

// Attach is `vigil attach`: the hooks, and vigil's MCP server, for
// Claude Code and Codex; the extension for pi and omp.
func (r *Request) Attach(ctx context.Context) error {
	if UsesExtension(r.Agent) {
		return r.attachExtension(ctx)
	}
	plan, err := PlanAttach(r.File, r.Agent, r.Binary, r.HookURL)
	if err != nil {
		return err
	}
	// What an older vigil wrote into the project's shared settings.json
	// moves out of it.
	var sharedPlan *Plan
	if shared := sharedFile(r.Agent, r.File); shared != "" {
		if sharedPlan, err = PlanDetach(shared, r.Agent); err != nil {
			return err
		}
		r.warn(sharedPlan.Warnings)
	}
	var mcpPlan, sharedMCPPlan *Plan
	if !r.NoMCP {
		loc, scope := r.mcpLocations()
		mcpFile, err := loc.MCPFile(r.Agent, scope)
		if err != nil {
			return err
		}
		if mcpPlan, err = PlanMCPAttachIn(mcpFile, loc.MCPProject(r.Agent, scope), r.Agent, MCPBinary(r.Binary)); err != nil {
			return err
		}
		r.warn(mcpPlan.Warnings)
		// An older vigil registered the project's server in the shared
		// .mcp.json.
		if shared := loc.SharedMCPFile(r.Agent, scope); shared != "" {
			if sharedMCPPlan, err = PlanMCPDetach(shared, r.Agent); err != nil {
				return err
			}
		}
	}
	r.warn(plan.Warnings)
	name := r.Agent.Name()
	if !plan.Changed() && !mcpPlan.Changed() && !sharedPlan.Changed() && !sharedMCPPlan.Changed() && r.NewHookd == nil {
		fmt.Fprintf(r.Out, "vigil is already attached to %s in %s: nothing to change.\n", name, r.File)
		if mcpPlan != nil && mcpPlan.Registered() {
			fmt.Fprintf(r.Out, "Its MCP server (ask_advisor) is registered in %s.\n", mcpWhere(mcpPlan))
		}
		if r.Agent == Codex {
			fmt.Fprint(r.Out, codexTrustNote(r.File))
		}
		return nil
	}
	if r.DryRun {
		r.dryRun([]*Plan{plan, sharedPlan, mcpPlan, sharedMCPPlan})
		if r.NewHookd != nil {
			fmt.Fprintf(r.Out, "dry run: %s (vigil hookd's address and secret) not written.\n", r.HookdFile)
		}
		return nil
	}
	if r.NewHookd != nil {
		if err := r.NewHookd(); err != nil {
			return err
		}
	}
	backup, err := plan.Write(time.Now())
	if err != nil {
		return err
	}
	if sharedPlan.Changed() {
		if _, err := sharedPlan.Write(time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "vigil's hooks moved out of %s, which is shared with the project, into %s (not shared: the hooks name your vigil binary, and hookd's secret).\n", sharedPlan.File, r.File)
	}
	if plan.Changed() {
		fmt.Fprintf(r.Out, "vigil attached to %s in %s:\n", name, r.File)
		writeChanges(r.Out, plan.Changes)
		fmt.Fprintf(r.Out, "  command: %s\n", Command(r.Binary, r.Agent))
		if r.HookURL != "" {
			fmt.Fprintf(r.Out, "  http:    %s (vigil hookd; the secret in the path keeps other local programs out)\n", r.HookURL)
		}
		if backup != "" {
			fmt.Fprintf(r.Out, "  backup:  %s\n", backup)
		}
	} else {
		fmt.Fprintf(r.Out, "vigil's hooks are already in %s.\n", r.File)
	}
	if sharedFile(r.Agent, r.File) != "" {
		if err := r.exclude(r.File); err != nil {
			return err
		}
	}
	if mcpPlan.Changed() {
		if err := r.writeMCP(mcpPlan, "registered"); err != nil {
			return err
		}
	}
	if sharedMCPPlan.Changed() {
		if err := r.writeMCP(sharedMCPPlan, ""); err != nil {
			return err
		}
	}
	switch r.Agent {
	case ClaudeCode:
		fmt.Fprintln(r.Out, "Claude Code reads hooks and MCP servers when a session starts: sessions already running keep the ones they had.")
	case Codex:
		fmt.Fprint(r.Out, codexTrustNote(r.File))
	}
	return nil
}

// Detach is `vigil detach`: vigil's hooks and MCP server out of the
// agent's settings (and out of the shared files an older vigil wrote
// them into); for pi and omp, the extension removed.
func (r *Request) Detach() error {
	if UsesExtension(r.Agent) {
		return r.detachExtension()
	}
	plans := []*Plan{}
	plan, err := PlanDetach(r.File, r.Agent)
	if err != nil {
		return err
	}
	plans = append(plans, plan)
	// An older vigil wrote the project's hooks into settings.json.
	if shared := sharedFile(r.Agent, r.File); shared != "" {
		sharedPlan, err := PlanDetach(shared, r.Agent)
		if err != nil {
			return err
		}
		plans = append(plans, sharedPlan)
	}
	loc, scope := r.mcpLocations()
	mcpFile, err := loc.MCPFile(r.Agent, scope)
	if err != nil {
		return err
	}
	mcpPlan, err := PlanMCPDetachIn(mcpFile, loc.MCPProject(r.Agent, scope), r.Agent)
	if err != nil {
		return err
	}
	mcpPlans := []*Plan{mcpPlan}
	if shared := loc.SharedMCPFile(r.Agent, scope); shared != "" {
		p, err := PlanMCPDetach(shared, r.Agent)
		if err != nil {
			return err
		}
		mcpPlans = append(mcpPlans, p)
	}
	all := append(append([]*Plan{}, plans...), mcpPlans...)
	changed := false
	for _, p := range all {
		changed = changed || p.Changed()
	}
	if !changed {
		fmt.Fprintf(r.Out, "vigil is not attached to %s in %s: nothing to change.\n", r.Agent.Name(), r.File)
		return nil
	}
	for _, p := range plans {
		r.warn(p.Warnings)
	}
	if r.DryRun {
		r.dryRun(all)
		return nil
	}
	for _, p := range plans {
		if !p.Changed() {
			continue
		}
		if _, err := p.Write(time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "vigil detached from %s in %s:\n", r.Agent.Name(), p.File)
		writeChanges(r.Out, p.Changes)
		if p.Remove {
			fmt.Fprintf(r.Out, "  %s held nothing else and is removed.\n", p.File)
			if err := r.unexclude(p.File); err != nil {
				return err
			}
		}
		if err := r.sayBackups(p); err != nil {
			return err
		}
	}
	for _, p := range mcpPlans {
		if !p.Changed() {
			continue
		}
		if err := r.writeMCP(p, ""); err != nil {
			return err
		}
		if err := r.sayBackups(p); err != nil {
			return err
		}
	}
	return nil
}

// dryRun prints the plans' diffs, then which files are not written.
func (r *Request) dryRun(plans []*Plan) {
	for _, p := range plans {
		fmt.Fprint(r.Out, p.Diff())
	}
	for _, p := range plans {
		if p.Changed() {
			fmt.Fprintf(r.Out, "dry run: %s not written.\n", p.File)
		}
	}
}

// writeMCP writes the plan of vigil's MCP entry and says what it did.
func (r *Request) writeMCP(p *Plan, verb string) error {
	backup, err := p.Write(time.Now())
	if err != nil {
		return err
	}
	for _, ch := range p.Changes {
		switch ch.Action {
		case Removed:
			fmt.Fprintf(r.Out, "vigil's MCP server (ask_advisor) removed from %s (%s).\n", mcpWhere(p), ch.Event)
		default:
			fmt.Fprintf(r.Out, "vigil's MCP server (ask_advisor) %s in %s as %s: %s\n", verb, mcpWhere(p), ch.Event, ch.Now)
		}
	}
	if p.Remove {
		fmt.Fprintf(r.Out, "  %s held nothing else and is removed.\n", p.File)
	}
	if backup != "" {
		fmt.Fprintf(r.Out, "  backup:  %s\n", backup)
	}
	return nil
}

// mcpLocations says where the agent's MCP servers are registered beside
// its hooks file ([Locations.MCPFile], MCPProject, SharedMCPFile at the
// scope returned): for Claude Code, ~/.claude.json, under the project
// (its local scope: hooks in PROJECT/.claude/settings.local.json) or,
// with --user, at the top level; Codex's config.toml beside its
// hooks.json.
func (r *Request) mcpLocations() (Locations, Scope) {
	loc := Locations{Home: r.Home, CodexHome: filepath.Dir(r.File)}
	if r.Agent == ClaudeCode && !r.User {
		loc.Project = filepath.Dir(filepath.Dir(r.File))
		return loc, Project
	}
	return loc, User
}

// mcpWhere names where an MCP plan registers the server.
func mcpWhere(p *Plan) string {
	if p.MCPProject != "" {
		return fmt.Sprintf("%s (for %s only, not shared)", p.File, p.MCPProject)
	}
	return p.File
}

// exclude lists file, a project's file that names the user's vigil (and
// maybe hookd's secret), in its repository's .git/info/exclude, and says
// so.
func (r *Request) exclude(file string) error {
	exclude, err := ExcludeFromGit(file)
	if err == nil && exclude != "" {
		fmt.Fprintf(r.Out, "  git:     listed in %s, so it is not committed (it names your vigil binary)\n", exclude)
	}
	return err
}

// unexclude takes out the line exclude added for file.
func (r *Request) unexclude(file string) error {
	exclude, err := UnexcludeFromGit(file)
	if err == nil && exclude != "" {
		fmt.Fprintf(r.Out, "  git:     no longer listed in %s\n", exclude)
	}
	return err
}

// sayBackups removes the backups attach made of a file that detach has
// made redundant (they hold what the file holds now) and says where the
// others are.
func (r *Request) sayBackups(p *Plan) error {
	kept, err := p.PruneBackups()
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		fmt.Fprintf(r.Out, "  earlier backups (vigil keeps them; remove them when you no longer need them):\n")
		for _, b := range kept {
			fmt.Fprintf(r.Out, "    %s\n", b)
		}
	}
	return nil
}

// warn prints each warning on its own line of Warn, as vigil's.
func (r *Request) warn(warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(r.Warn, "vigil: warning: %s\n", s)
	}
}

// sharedFile is the settings file meant to be committed beside the
// hooks file attach writes, where an older vigil wrote vigil's hooks:
// for Claude Code's PROJECT/.claude/settings.local.json, the project's
// settings.json; "" for the others ([Locations.SharedFile]).
func sharedFile(a Agent, hooksFile string) string {
	if a != ClaudeCode || filepath.Base(hooksFile) != "settings.local.json" {
		return ""
	}
	return filepath.Join(filepath.Dir(hooksFile), "settings.json")
}

// Name is the agent's name in what vigil says: Claude Code, Codex, pi,
// omp.
func (a Agent) Name() string {
	switch a {
	case Codex:
		return "Codex"
	case Pi, Omp:
		return string(a)
	}
	return "Claude Code"
}

// writeChanges prints one line per kind of change with its events.
func writeChanges(w io.Writer, changes []Change) {
	var order []Action
	events := map[Action][]string{}
	for _, c := range changes {
		if _, ok := events[c.Action]; !ok {
			order = append(order, c.Action)
		}
		events[c.Action] = append(events[c.Action], c.Event)
	}
	for _, a := range order {
		fmt.Fprintf(w, "  %-8s %s\n", a+":", strings.Join(events[a], ", "))
	}
	for _, c := range changes {
		if c.Action == Updated && c.Was != c.Now {
			fmt.Fprintf(w, "  %s was: %s\n", c.Event, c.Was)
		}
	}
}

// codexTrustNote tells how to trust the hooks in file: Codex skips,
// silently, every hook nobody has trusted, and vigil does not trust them
// on anyone's behalf.
func codexTrustNote(file string) string {
	return "Codex runs only hooks you have trusted, and skips the others without a word. Review and trust\n" +
		"vigil's hooks with /hooks in the Codex TUI (Codex asks again whenever a hook changes), or pass\n" +
		"--dangerously-bypass-hook-trust to `codex exec` to run them untrusted in that one run. Codex keeps\n" +
		"trust in $CODEX_HOME/config.toml, one table per hook: [hooks.state.\"" + file + ":EVENT:GROUP:HANDLER\"]\n" +
		"(docs/attach.md).\n"
}
