package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/vigil-dev/vigil/internal/attach"
	"github.com/vigil-dev/vigil/transcript"
)

// runExtension is `vigil attach pi|omp`: vigil's extension written into
// the agent's extensions folder (the user's unless --project names a
// project, or --file a file), running the hook binary when no sidecar
// answers (docs/attach.md). Attaching for every project moves out the
// extension an older vigil wrote into this project's folder.
func (c *attachCmd) runExtension(e *env, agent attach.Agent) error {
	if c.HTTP {
		return &exitError{code: exitUsage, err: fmt.Errorf("--http is for claude-code: vigil's extension in %s talks to the sidecar's socket itself", agent)}
	}
	file, scope, err := e.extensionFile(agent, c.Project, c.User, c.File)
	if err != nil {
		return err
	}
	binary, err := c.binary(e)
	if err != nil {
		return err
	}
	plan, err := attach.PlanExtension(file, agent, binary)
	if err != nil {
		return err
	}
	// Both would load where the agent loads the project's (omp, pi before
	// 0.79, a project pi trusts); from 0.79 on, pi skips the project's
	// silently in a project it does not trust.
	var moved *attach.Plan
	if scope == attach.User {
		if moved, err = e.oldProjectExtension(agent); err != nil {
			return err
		}
	}
	flag := ""
	if c.File != "" {
		flag = fmt.Sprintf("Load it with: %s -e %s\n", agent, attach.ShellQuote(file))
	}
	if !plan.Changed() && moved == nil {
		fmt.Fprintf(e.stdout, "vigil is already attached to %s in %s: nothing to change.\n%s", agent, file, flag)
		e.extensionNotes(agent, scope, file)
		return nil
	}
	if c.DryRun {
		fmt.Fprint(e.stdout, plan.Diff())
		if moved != nil {
			fmt.Fprint(e.stdout, moved.Diff())
		}
		fmt.Fprintf(e.stdout, "dry run: %s not written.\n", file)
		return nil
	}
	if err := plan.WriteExtension(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "vigil attached to %s in %s:\n", agent, file)
	if scope == attach.Project {
		// A project's extension names the user's vigil-hook.
		if err := excludeFromGit(e, file); err != nil {
			return err
		}
	}
	if plan.Changed() {
		fmt.Fprintf(e.stdout, "  %-8s vigil's extension (%s)\n", plan.Changes[0].Action+":", attach.ShellQuote(filepath.Base(file)))
		fmt.Fprintf(e.stdout, "  command: %s (when no sidecar answers)\n", plan.Changes[0].Now)
	}
	if moved != nil {
		if err := moved.WriteExtension(); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "  moved:   from %s (%s)\n", moved.File, movedWhy(agent))
		if err := unexcludeFromGit(e, moved.File); err != nil {
			return err
		}
	}
	if scope == attach.User {
		fmt.Fprintf(e.stdout, "It serves every project you run %s in.\n", agent)
	}
	fmt.Fprintf(e.stdout, "%s reads its extensions when a session starts: sessions already running go on without it.\n%s", agent, flag)
	if agent == attach.Omp {
		fmt.Fprintln(e.stdout, "omp's own advisor (--advisor) reviews too: with both on, each note may come twice (docs/attach.md).")
	}
	e.extensionNotes(agent, scope, file)
	return nil
}

// movedWhy says why attach moves a project's extension to the user's
// folder.
func movedWhy(agent attach.Agent) string {
	if agent == attach.Pi {
		return "pi 0.79 and later load a project's extensions only in a project you trust; the user's serve every project"
	}
	return "the user's serves every project"
}

// oldProjectExtension plans removing vigil's extension from the
// project of the working folder, where an older vigil's attach wrote it
// by default: nil when there is none (or the file there is not vigil's).
func (e *env) oldProjectExtension(agent attach.Agent) (*attach.Plan, error) {
	file, err := e.hooksFile(agent, "", false)
	if err != nil {
		return nil, err
	}
	user, err := e.hooksFile(agent, "", true)
	if err != nil || user == file {
		return nil, err // PI_CODING_AGENT_DIR is the project's .pi
	}
	p, err := attach.PlanExtensionDetach(file)
	if err != nil || !p.Changed() {
		return nil, nil // not vigil's: not ours to move
	}
	return p, nil
}

// extensionNotes warns about what keeps the agent from loading the
// extension in file: its version on PATH, and for pi, a project it does
// not trust; and reminds that pi loads a project's extensions only in
// the folder it runs in.
func (e *env) extensionNotes(agent attach.Agent, scope attach.Scope, file string) {
	path, _ := e.lookupEnv("PATH")
	in := attach.FindAgent(e.ctx, agent, path)
	if scope == attach.Project && agent == attach.Pi {
		dir := filepath.Dir(filepath.Dir(filepath.Dir(file)))
		fmt.Fprintf(e.stdout, "pi loads a project's extensions when it runs in %s itself, not in a folder below it; and from 0.79 on, only in a project you trust (docs/attach.md).\n", dir)
	}
	if scope == attach.Project {
		if user, err := e.hooksFile(agent, "", true); err == nil {
			if p, err := attach.PlanExtensionDetach(user); err == nil && p.Changed() {
				fmt.Fprintf(e.stdout, "vigil is attached to %s for every project too (%s): where both load, one of them forwards the session's events.\n", agent, user)
			}
		}
	}
	warn(e.stderr, attach.LoadProblems(agent, scope, file, in, e.piAgentDir()))
}

// runExtension is `vigil detach pi|omp`: the extension removed, with the
// folders attach created for it that this leaves empty. Without --project,
// --user or --file, both the user's and this project's, where an older
// vigil wrote it.
func (c *detachCmd) runExtension(e *env, agent attach.Agent) error {
	file, scope, err := e.extensionFile(agent, c.Project, c.User, c.File)
	if err != nil {
		return err
	}
	plan, err := attach.PlanExtensionDetach(file)
	if err != nil {
		return err
	}
	plans := []*attach.Plan{plan}
	if scope == attach.User && !c.User {
		old, err := e.oldProjectExtension(agent)
		if err != nil {
			return err
		}
		if old != nil {
			plans = append(plans, old)
		}
	}
	if !plan.Changed() && len(plans) == 1 {
		fmt.Fprintf(e.stdout, "vigil is not attached to %s in %s: nothing to change.\n", agent, file)
		return nil
	}
	if c.DryRun {
		for _, p := range plans {
			fmt.Fprint(e.stdout, p.Diff())
			fmt.Fprintf(e.stdout, "dry run: %s not removed.\n", p.File)
		}
		return nil
	}
	for i, p := range plans {
		if !p.Changed() {
			continue
		}
		if err := p.WriteExtension(); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "vigil detached from %s in %s:\n  removed: vigil's extension\n", agent, p.File)
		if i > 0 || scope == attach.Project {
			if err := unexcludeFromGit(e, p.File); err != nil {
				return err
			}
		}
	}
	return nil
}

// extensionFile is the file of vigil's extension and its scope: --file
// (scope ""), the project's extensions folder with --project, else the
// user's.
func (e *env) extensionFile(agent attach.Agent, project string, user bool, file string) (string, attach.Scope, error) {
	if file != "" {
		if project != "" || user {
			return "", "", &exitError{code: exitUsage, err: errors.New("--file names the file itself: give it without --project or --user")}
		}
		f, err := filepath.Abs(file)
		return f, "", err
	}
	scope := attach.User
	if project != "" {
		scope = attach.Project
	}
	f, err := e.hooksFile(agent, project, scope == attach.User)
	return f, scope, err
}

// piAgentDir is pi's agent folder: $PI_CODING_AGENT_DIR, else ~/.pi/agent.
func (e *env) piAgentDir() string {
	if d, ok := e.lookupEnv("PI_CODING_AGENT_DIR"); ok && d != "" {
		return d
	}
	home, _ := e.home()
	return filepath.Join(home, ".pi", "agent")
}

// followFormat is the transcript format a sidecar follows for agent.
// omp's session files are pi's format (the reader tells them apart).
func followFormat(agent string) transcript.Format {
	switch attach.Agent(agent) {
	case attach.Codex:
		return transcript.FormatCodex
	case attach.Pi, attach.Omp:
		return transcript.FormatPi
	}
	return transcript.FormatClaudeCode
}
