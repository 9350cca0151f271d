package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/vigil-dev/vigil/internal/attach"
	"github.com/vigil-dev/vigil/transcript"
)

// runExtension is `vigil attach pi|omp` ([attach.Request.Attach]):
// vigil's extension in the agent's extensions folder, the user's unless
// --project names a project, or --file a file.
func (c *attachCmd) runExtension(e *env, agent attach.Agent) error {
	if c.HTTP {
		return &exitError{code: exitUsage, err: fmt.Errorf("--http is for claude-code: vigil's extension in %s talks to the sidecar's socket itself", agent)}
	}
	r, err := e.extensionRequest(agent, c.Project, c.User, c.File, c.DryRun)
	if err != nil {
		return err
	}
	if r.Binary, err = c.binary(e); err != nil {
		return err
	}
	if r.Scope == attach.User {
		if r.OldFile, err = e.oldExtensionFile(agent); err != nil {
			return err
		}
	}
	r.Path, _ = e.lookupEnv("PATH")
	loc, _ := e.locations()
	r.PiAgentDir = loc.PiAgentDir()
	if r.Scope == attach.Project {
		r.UserFile, _ = e.hooksFile(agent, "", true)
	}
	return r.Attach(e.ctx)
}

// oldExtensionFile is the extensions file of the working folder's
// project, where an older vigil's attach wrote it by default; "" when
// that is the user's (PI_CODING_AGENT_DIR is the project's .pi).
func (e *env) oldExtensionFile(agent attach.Agent) (string, error) {
	file, err := e.hooksFile(agent, "", false)
	if err != nil {
		return "", err
	}
	user, err := e.hooksFile(agent, "", true)
	if err != nil || user == file {
		return "", err
	}
	return file, nil
}

// runExtension is `vigil detach pi|omp` ([attach.Request.Detach]).
// Without --project, --user or --file, both the user's and this
// project's, where an older vigil wrote it.
func (c *detachCmd) runExtension(e *env, agent attach.Agent) error {
	r, err := e.extensionRequest(agent, c.Project, c.User, c.File, c.DryRun)
	if err != nil {
		return err
	}
	if r.Scope == attach.User && !c.User {
		if r.OldFile, err = e.oldExtensionFile(agent); err != nil {
			return err
		}
	}
	return r.Detach()
}

// extensionRequest is the request for vigil's extension and its scope:
// --file (scope ""), the project's extensions folder with --project, else
// the user's.
func (e *env) extensionRequest(agent attach.Agent, project string, user bool, file string, dryRun bool) (*attach.Request, error) {
	r := &attach.Request{Agent: agent, Scope: attach.User, DryRun: dryRun, Out: e.stdout, Warn: e.stderr}
	var err error
	switch {
	case file != "" && (project != "" || user):
		return nil, &exitError{code: exitUsage, err: errors.New("--file names the file itself: give it without --project or --user")}
	case file != "":
		r.Scope = ""
		r.File, err = filepath.Abs(file)
	case project != "":
		r.Scope = attach.Project
		r.File, err = e.hooksFile(agent, project, false)
	default:
		r.File, err = e.hooksFile(agent, project, true)
	}
	return r, err
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
