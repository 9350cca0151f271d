package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/vigil-dev/vigil/internal/attach"
	"github.com/vigil-dev/vigil/transcript"
)

// runExtension is `vigil attach pi|omp`: vigil's extension written into
// the agent's extensions folder (or to --file), running the hook binary
// when no sidecar answers (docs/attach.md).
func (c *attachCmd) runExtension(e *env, agent attach.Agent) error {
	if c.HTTP {
		return &exitError{code: exitUsage, err: fmt.Errorf("--http is for claude-code: vigil's extension in %s talks to the sidecar's socket itself", agent)}
	}
	file, err := e.extensionFile(agent, c.Project, c.User, c.File)
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
	flag := ""
	if c.File != "" {
		flag = fmt.Sprintf("Load it with: %s -e %s\n", agent, attach.ShellQuote(file))
	}
	if !plan.Changed() {
		fmt.Fprintf(e.stdout, "vigil is already attached to %s in %s: nothing to change.\n%s", agent, file, flag)
		return nil
	}
	if c.DryRun {
		fmt.Fprint(e.stdout, plan.Diff())
		fmt.Fprintf(e.stdout, "dry run: %s not written.\n", file)
		return nil
	}
	if err := plan.WriteExtension(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "vigil attached to %s in %s:\n", agent, file)
	if !c.User && c.File == "" {
		// A project's extension names the user's vigil-hook.
		if err := excludeFromGit(e, file); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "  %-8s vigil's extension (%s)\n", plan.Changes[0].Action+":", attach.ShellQuote(filepath.Base(file)))
	fmt.Fprintf(e.stdout, "  command: %s (when no sidecar answers)\n", plan.Changes[0].Now)
	fmt.Fprintf(e.stdout, "%s reads its extensions when a session starts: sessions already running go on without it.\n%s", agent, flag)
	if agent == attach.Omp {
		fmt.Fprintln(e.stdout, "omp's own advisor (--advisor) reviews too: with both on, each note may come twice (docs/attach.md).")
	}
	return nil
}

// runExtension is `vigil detach pi|omp`: the extension removed, with the
// folders attach created for it that this leaves empty.
func (c *detachCmd) runExtension(e *env, agent attach.Agent) error {
	file, err := e.extensionFile(agent, c.Project, c.User, c.File)
	if err != nil {
		return err
	}
	plan, err := attach.PlanExtensionDetach(file)
	if err != nil {
		return err
	}
	if !plan.Changed() {
		fmt.Fprintf(e.stdout, "vigil is not attached to %s in %s: nothing to change.\n", agent, file)
		return nil
	}
	if c.DryRun {
		fmt.Fprint(e.stdout, plan.Diff())
		fmt.Fprintf(e.stdout, "dry run: %s not removed.\n", file)
		return nil
	}
	if err := plan.WriteExtension(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "vigil detached from %s in %s:\n  removed: vigil's extension\n", agent, file)
	if !c.User && c.File == "" {
		if err := unexcludeFromGit(e, file); err != nil {
			return err
		}
	}
	return nil
}

// extensionFile is the file of vigil's extension: --file, or the
// project's or the user's extensions folder of the agent.
func (e *env) extensionFile(agent attach.Agent, project string, user bool, file string) (string, error) {
	if file != "" {
		if project != "" || user {
			return "", &exitError{code: exitUsage, err: errors.New("--file names the file itself: give it without --project or --user")}
		}
		return filepath.Abs(file)
	}
	return e.hooksFile(agent, project, user)
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
