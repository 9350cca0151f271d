package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/internal/attach"
)

// attachCmd is `vigil attach AGENT` (docs/attach.md).
type attachCmd struct {
	Agent   string `arg:"" enum:"claude-code,codex,pi,omp" help:"The agent to attach to: claude-code, codex, pi or omp."`
	Project string `help:"Claude Code: write the hooks into DIR/.claude/settings.local.json (not shared) and vigil's MCP server under DIR in ~/.claude.json; pi, omp: vigil's extension into DIR/.pi/extensions (.omp/extensions), which pi 0.79 and later load only in a trusted project (default for Claude Code: the git root of this folder, else this folder; for pi and omp: the user's folder)." placeholder:"DIR" type:"existingdir"`
	User    bool   `help:"Claude Code: write the hooks into ~/.claude/settings.json, for every project; pi, omp: the extension into ~/.pi/agent/extensions (~/.omp/agent/extensions), for every project (their default)."`
	File    string `name:"file" help:"pi, omp: write the extension to FILE instead of an extensions folder, to load with -e FILE." placeholder:"FILE" type:"path"`
	Command string `help:"The binary the hooks run: vigil, or vigil-hook (default: the vigil-hook beside this vigil, else this vigil). Needed when this one was built by go run." placeholder:"PATH" type:"path"`
	HTTP    bool   `name:"http" help:"Claude Code: send the tool, Stop, PreCompact and SessionEnd events to vigil hookd as HTTP hooks on loopback (no process per event); SessionStart and UserPromptSubmit stay commands and start hookd."`
	NoMCP   bool   `name:"no-mcp" help:"Claude Code, Codex: install the hooks only, without registering vigil's MCP server (vigil mcp: the ask_advisor tool)."`
	DryRun  bool   `name:"dry-run" help:"Print the change as a unified diff and write nothing."`
}

// detachCmd is `vigil detach AGENT` (docs/attach.md).
type detachCmd struct {
	Agent   string `arg:"" enum:"claude-code,codex,pi,omp" help:"The agent to detach from: claude-code, codex, pi or omp."`
	Project string `help:"Claude Code: edit DIR/.claude/settings.local.json (and what an older vigil wrote into DIR/.claude/settings.json and DIR/.mcp.json); pi, omp: remove the extension from DIR/.pi/extensions (.omp/extensions) (default for Claude Code: the git root of this folder, else this folder; for pi and omp: the user's folder and this project's)." placeholder:"DIR" type:"existingdir"`
	User    bool   `help:"Claude Code: edit ~/.claude/settings.json; pi, omp: remove the extension from ~/.pi/agent/extensions (~/.omp/agent/extensions) only."`
	File    string `name:"file" help:"pi, omp: remove the extension written with attach --file FILE." placeholder:"FILE" type:"path"`
	DryRun  bool   `name:"dry-run" help:"Print the change as a unified diff and write nothing."`
}

func (c *attachCmd) Run(e *env) error {
	agent, err := attach.ParseAgent(c.Agent)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if attach.UsesExtension(agent) {
		return c.runExtension(e, agent)
	}
	if c.File != "" {
		return &exitError{code: exitUsage, err: errors.New("--file is for pi and omp: vigil's extension")}
	}
	file, err := e.hooksFile(agent, c.Project, c.User)
	if err != nil {
		return err
	}
	binary, err := c.binary(e)
	if err != nil {
		return err
	}
	hookURL := ""
	var newHookd func() error // writes hookd.json, when there is none yet
	if c.HTTP {
		if agent != attach.ClaudeCode {
			return &exitError{code: exitUsage, err: errors.New("--http is for claude-code: Codex has only command hooks")}
		}
		agentDir, err := e.agentDir()
		if err != nil {
			return err
		}
		cfg, isNew, err := hookdConfigFor(agentDir)
		if err != nil {
			return err
		}
		hookURL = cfg.URL(string(agent))
		if isNew {
			newHookd = func() error { return saveHookdConfig(agentDir, cfg) }
		}
	}
	plan, err := attach.PlanAttach(file, agent, binary, hookURL)
	if err != nil {
		return err
	}
	// What an older vigil wrote into the project's shared settings.json
	// moves out of it.
	var sharedPlan *attach.Plan
	if shared := sharedFile(agent, file); shared != "" {
		if sharedPlan, err = attach.PlanDetach(shared, agent); err != nil {
			return err
		}
		warn(e.stderr, sharedPlan.Warnings)
	}
	var mcpPlan, sharedMCPPlan *attach.Plan
	if !c.NoMCP {
		loc, scope, err := e.mcpLocations(agent, file, c.User)
		if err != nil {
			return err
		}
		mcpFile, err := loc.MCPFile(agent, scope)
		if err != nil {
			return err
		}
		if mcpPlan, err = attach.PlanMCPAttachIn(mcpFile, loc.MCPProject(agent, scope), agent, attach.MCPBinary(binary)); err != nil {
			return err
		}
		warn(e.stderr, mcpPlan.Warnings)
		// An older vigil registered the project's server in the shared
		// .mcp.json.
		if shared := loc.SharedMCPFile(agent, scope); shared != "" {
			if sharedMCPPlan, err = attach.PlanMCPDetach(shared, agent); err != nil {
				return err
			}
		}
	}
	warn(e.stderr, plan.Warnings)
	name := agentName(agent)
	if !plan.Changed() && !mcpPlan.Changed() && !sharedPlan.Changed() && !sharedMCPPlan.Changed() && newHookd == nil {
		fmt.Fprintf(e.stdout, "vigil is already attached to %s in %s: nothing to change.\n", name, file)
		if mcpPlan != nil && mcpPlan.Registered() {
			fmt.Fprintf(e.stdout, "Its MCP server (ask_advisor) is registered in %s.\n", mcpWhere(mcpPlan))
		}
		if agent == attach.Codex {
			fmt.Fprint(e.stdout, codexTrustNote(file))
		}
		return nil
	}
	if c.DryRun {
		fmt.Fprint(e.stdout, plan.Diff())
		fmt.Fprint(e.stdout, sharedPlan.Diff())
		fmt.Fprint(e.stdout, mcpPlan.Diff())
		fmt.Fprint(e.stdout, sharedMCPPlan.Diff())
		for _, p := range []*attach.Plan{plan, sharedPlan, mcpPlan, sharedMCPPlan} {
			if p != nil && p.Changed() {
				fmt.Fprintf(e.stdout, "dry run: %s not written.\n", p.File)
			}
		}
		if newHookd != nil {
			agentDir, _ := e.agentDir()
			fmt.Fprintf(e.stdout, "dry run: %s (vigil hookd's address and secret) not written.\n", hookdFile(agentDir))
		}
		return nil
	}
	if newHookd != nil {
		if err := newHookd(); err != nil {
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
		fmt.Fprintf(e.stdout, "vigil's hooks moved out of %s, which is shared with the project, into %s (not shared: the hooks name your vigil binary, and hookd's secret).\n", sharedPlan.File, file)
	}
	if plan.Changed() {
		fmt.Fprintf(e.stdout, "vigil attached to %s in %s:\n", name, file)
		writeChanges(e.stdout, plan.Changes)
		fmt.Fprintf(e.stdout, "  command: %s\n", attach.Command(binary, agent))
		if hookURL != "" {
			fmt.Fprintf(e.stdout, "  http:    %s (vigil hookd; the secret in the path keeps other local programs out)\n", hookURL)
		}
		if backup != "" {
			fmt.Fprintf(e.stdout, "  backup:  %s\n", backup)
		}
	} else {
		fmt.Fprintf(e.stdout, "vigil's hooks are already in %s.\n", file)
	}
	if sharedFile(agent, file) != "" {
		if err := excludeFromGit(e, file); err != nil {
			return err
		}
	}
	if mcpPlan.Changed() {
		if err := writeMCP(e, mcpPlan, "registered"); err != nil {
			return err
		}
	}
	if sharedMCPPlan.Changed() {
		if err := writeMCP(e, sharedMCPPlan, ""); err != nil {
			return err
		}
	}
	switch agent {
	case attach.ClaudeCode:
		fmt.Fprintln(e.stdout, "Claude Code reads hooks and MCP servers when a session starts: sessions already running keep the ones they had.")
	case attach.Codex:
		fmt.Fprint(e.stdout, codexTrustNote(file))
	}
	return nil
}

// writeMCP writes the plan of vigil's MCP entry and says what it did.
func writeMCP(e *env, p *attach.Plan, verb string) error {
	backup, err := p.Write(time.Now())
	if err != nil {
		return err
	}
	for _, ch := range p.Changes {
		switch ch.Action {
		case attach.Removed:
			fmt.Fprintf(e.stdout, "vigil's MCP server (ask_advisor) removed from %s (%s).\n", mcpWhere(p), ch.Event)
		default:
			fmt.Fprintf(e.stdout, "vigil's MCP server (ask_advisor) %s in %s as %s: %s\n", verb, mcpWhere(p), ch.Event, ch.Now)
		}
	}
	if p.Remove {
		fmt.Fprintf(e.stdout, "  %s held nothing else and is removed.\n", p.File)
	}
	if backup != "" {
		fmt.Fprintf(e.stdout, "  backup:  %s\n", backup)
	}
	return nil
}

// mcpLocations says where agent's MCP servers are registered beside its
// hooks file ([attach.Locations.MCPFile], MCPProject, SharedMCPFile at
// the scope returned): for Claude Code, ~/.claude.json, under the
// project (its local scope: hooks in PROJECT/.claude/settings.local.json)
// or, with --user, at the top level; Codex's config.toml beside its
// hooks.json.
func (e *env) mcpLocations(agent attach.Agent, hooksFile string, user bool) (attach.Locations, attach.Scope, error) {
	home, err := e.home()
	if err != nil {
		return attach.Locations{}, attach.User, err
	}
	loc := attach.Locations{Home: home, CodexHome: filepath.Dir(hooksFile)}
	scope := attach.User
	if agent == attach.ClaudeCode && !user {
		loc.Project, scope = filepath.Dir(filepath.Dir(hooksFile)), attach.Project
	}
	return loc, scope, nil
}

// mcpWhere names where an MCP plan registers the server.
func mcpWhere(p *attach.Plan) string {
	if p.MCPProject != "" {
		return fmt.Sprintf("%s (for %s only, not shared)", p.File, p.MCPProject)
	}
	return p.File
}

func (c *detachCmd) Run(e *env) error {
	agent, err := attach.ParseAgent(c.Agent)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if attach.UsesExtension(agent) {
		return c.runExtension(e, agent)
	}
	if c.File != "" {
		return &exitError{code: exitUsage, err: errors.New("--file is for pi and omp: vigil's extension")}
	}
	file, err := e.hooksFile(agent, c.Project, c.User)
	if err != nil {
		return err
	}
	plans := []*attach.Plan{}
	plan, err := attach.PlanDetach(file, agent)
	if err != nil {
		return err
	}
	plans = append(plans, plan)
	// An older vigil wrote the project's hooks into settings.json.
	if shared := sharedFile(agent, file); shared != "" {
		sharedPlan, err := attach.PlanDetach(shared, agent)
		if err != nil {
			return err
		}
		plans = append(plans, sharedPlan)
	}
	loc, scope, err := e.mcpLocations(agent, file, c.User)
	if err != nil {
		return err
	}
	mcpFile, err := loc.MCPFile(agent, scope)
	if err != nil {
		return err
	}
	mcpPlan, err := attach.PlanMCPDetachIn(mcpFile, loc.MCPProject(agent, scope), agent)
	if err != nil {
		return err
	}
	mcpPlans := []*attach.Plan{mcpPlan}
	if shared := loc.SharedMCPFile(agent, scope); shared != "" {
		p, err := attach.PlanMCPDetach(shared, agent)
		if err != nil {
			return err
		}
		mcpPlans = append(mcpPlans, p)
	}
	name := agentName(agent)
	changed := false
	for _, p := range append(plans, mcpPlans...) {
		changed = changed || p.Changed()
	}
	if !changed {
		fmt.Fprintf(e.stdout, "vigil is not attached to %s in %s: nothing to change.\n", name, file)
		return nil
	}
	for _, p := range plans {
		warn(e.stderr, p.Warnings)
	}
	if c.DryRun {
		for _, p := range append(plans, mcpPlans...) {
			fmt.Fprint(e.stdout, p.Diff())
		}
		for _, p := range append(plans, mcpPlans...) {
			if p.Changed() {
				fmt.Fprintf(e.stdout, "dry run: %s not written.\n", p.File)
			}
		}
		return nil
	}
	for _, p := range plans {
		if !p.Changed() {
			continue
		}
		if _, err := p.Write(time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "vigil detached from %s in %s:\n", name, p.File)
		writeChanges(e.stdout, p.Changes)
		if p.Remove {
			fmt.Fprintf(e.stdout, "  %s held nothing else and is removed.\n", p.File)
			if err := unexcludeFromGit(e, p.File); err != nil {
				return err
			}
		}
		if err := sayBackups(e, p); err != nil {
			return err
		}
	}
	for _, p := range mcpPlans {
		if !p.Changed() {
			continue
		}
		if err := writeMCP(e, p, ""); err != nil {
			return err
		}
		if err := sayBackups(e, p); err != nil {
			return err
		}
	}
	return nil
}

// excludeFromGit lists file, a project's file that names the user's
// vigil (and maybe hookd's secret), in its repository's
// .git/info/exclude, and says so.
func excludeFromGit(e *env, file string) error {
	exclude, err := attach.ExcludeFromGit(file)
	if err != nil {
		return err
	}
	if exclude != "" {
		fmt.Fprintf(e.stdout, "  git:     listed in %s, so it is not committed (it names your vigil binary)\n", exclude)
	}
	return nil
}

// unexcludeFromGit takes out the line excludeFromGit added for file.
func unexcludeFromGit(e *env, file string) error {
	exclude, err := attach.UnexcludeFromGit(file)
	if err != nil {
		return err
	}
	if exclude != "" {
		fmt.Fprintf(e.stdout, "  git:     no longer listed in %s\n", exclude)
	}
	return nil
}

// sayBackups removes the backups attach made of a file that detach has
// made redundant (they hold what the file holds now) and says where the
// others are.
func sayBackups(e *env, p *attach.Plan) error {
	kept, err := p.PruneBackups()
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		fmt.Fprintf(e.stdout, "  earlier backups (vigil keeps them; remove them when you no longer need them):\n")
		for _, b := range kept {
			fmt.Fprintf(e.stdout, "    %s\n", b)
		}
	}
	return nil
}

// sharedFile is the settings file meant to be committed beside the
// hooks file attach writes, where an older vigil wrote vigil's hooks:
// for Claude Code's PROJECT/.claude/settings.local.json, the project's
// settings.json; "" for the others ([attach.Locations.SharedFile]).
func sharedFile(agent attach.Agent, hooksFile string) string {
	if agent != attach.ClaudeCode || filepath.Base(hooksFile) != "settings.local.json" {
		return ""
	}
	return filepath.Join(filepath.Dir(hooksFile), "settings.json")
}

// binary is the binary the hooks run: --command as given (vigil, or the
// hook binary vigil-hook), or else the vigil-hook beside this vigil when
// there is one (it starts several times faster, docs/attach.md), else
// this vigil; unless go run or go test built this one somewhere it will
// not stay.
func (c *attachCmd) binary(e *env) (string, error) {
	if c.Command != "" {
		path, err := filepath.Abs(c.Command)
		if err != nil {
			return "", fmt.Errorf("--command %s: %w", c.Command, err)
		}
		if !strings.HasPrefix(filepath.Base(path), "vigil") {
			return "", &exitError{code: exitUsage, err: fmt.Errorf("--command %s: name the vigil binary (its file name must start with vigil, which is how attach and detach recognise vigil's hooks)", c.Command)}
		}
		if info, err := os.Stat(path); err != nil || info.IsDir() {
			fmt.Fprintf(e.stderr, "vigil: warning: --command %s: no such file yet; the hooks will fail until it exists\n", path)
		}
		return path, nil
	}
	exe, err := attach.Executable()
	if err != nil {
		return "", err
	}
	if why := attach.TransientBinary(exe, e.lookupEnv); why != "" {
		return "", &exitError{code: exitUsage, err: fmt.Errorf("this vigil (%s) looks like a temporary build: %s, and hooks that run it would break once it is gone.\n"+
			"Install vigil (go install ./cmd/vigil ./cmd/vigil-hook, or go build -o ~/bin/ ./cmd/vigil ./cmd/vigil-hook) and attach with that one, or pass --command PATH naming the vigil binary the hooks should run", exe, why)}
	}
	return attach.HookBinary(exe), nil
}

// hooksFile is the file attach and detach edit: Claude Code's project or
// user settings, or Codex's $CODEX_HOME/hooks.json.
func (e *env) hooksFile(agent attach.Agent, project string, user bool) (string, error) {
	home, err := e.home()
	if err != nil {
		return "", err
	}
	loc := attach.Locations{Home: home}
	if d, ok := e.lookupEnv("CODEX_HOME"); ok && d != "" {
		loc.CodexHome = d
	}
	loc.PiAgent, _ = e.lookupEnv("PI_CODING_AGENT_DIR")
	if agent == attach.Codex {
		if project != "" {
			return "", &exitError{code: exitUsage, err: errors.New("--project is for claude-code: Codex's hooks go into $CODEX_HOME/hooks.json (default ~/.codex/hooks.json)")}
		}
		return loc.File(agent, attach.User)
	}
	if user {
		if project != "" {
			return "", &exitError{code: exitUsage, err: errors.New("--user and --project name different files: give one")}
		}
		return loc.File(agent, attach.User)
	}
	if project == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the working folder: %w", err)
		}
		project = contextfiles.ProjectRoot(cwd)
	}
	loc.Project = project
	return loc.File(agent, attach.Project)
}

// home is the user's home folder: $HOME, else the system's idea of it.
func (e *env) home() (string, error) {
	if h, ok := e.lookupEnv("HOME"); ok && h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home folder: set HOME: %w", err)
	}
	return h, nil
}

func agentName(a attach.Agent) string {
	switch a {
	case attach.Codex:
		return "Codex"
	case attach.Pi, attach.Omp:
		return string(a)
	}
	return "Claude Code"
}

// writeChanges prints one line per kind of change with its events.
func writeChanges(w io.Writer, changes []attach.Change) {
	var order []attach.Action
	events := map[attach.Action][]string{}
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
		if c.Action == attach.Updated && c.Was != c.Now {
			fmt.Fprintf(w, "  %s was: %s\n", c.Event, c.Was)
		}
	}
}

func warn(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "vigil: warning: %s\n", s)
	}
}

// codexTrustNote tells how to trust the hooks: Codex skips, silently, every
// hook nobody has trusted, and vigil does not trust them on anyone's behalf.
func codexTrustNote(file string) string {
	return "Codex runs only hooks you have trusted, and skips the others without a word. Review and trust\n" +
		"vigil's hooks with /hooks in the Codex TUI (Codex asks again whenever a hook changes), or pass\n" +
		"--dangerously-bypass-hook-trust to `codex exec` to run them untrusted in that one run. Codex keeps\n" +
		"trust in $CODEX_HOME/config.toml, one table per hook: [hooks.state.\"" + file + ":EVENT:GROUP:HANDLER\"]\n" +
		"(docs/attach.md).\n"
}
