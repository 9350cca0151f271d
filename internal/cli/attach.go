package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	r, err := e.request(agent, c.Project, c.User, c.DryRun)
	if err != nil {
		return err
	}
	if r.Binary, err = c.binary(e); err != nil {
		return err
	}
	r.NoMCP = c.NoMCP
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
		r.HookURL = cfg.URL(string(agent))
		if isNew {
			r.NewHookd, r.HookdFile = func() error { return saveHookdConfig(agentDir, cfg) }, hookdFile(agentDir)
		}
	}
	return r.Attach(e.ctx)
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
	r, err := e.request(agent, c.Project, c.User, c.DryRun)
	if err != nil {
		return err
	}
	return r.Detach()
}

// request is attach's or detach's request for agent's hooks file.
func (e *env) request(agent attach.Agent, project string, user, dryRun bool) (*attach.Request, error) {
	file, err := e.hooksFile(agent, project, user)
	if err != nil {
		return nil, err
	}
	home, err := e.home()
	if err != nil {
		return nil, err
	}
	return &attach.Request{Agent: agent, File: file, User: user, Home: home, DryRun: dryRun, Out: e.stdout, Warn: e.stderr}, nil
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
	loc, err := e.locations()
	if err != nil {
		return "", err
	}
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

// locations is where the agents' settings files are, from HOME,
// CODEX_HOME and PI_CODING_AGENT_DIR.
func (e *env) locations() (attach.Locations, error) {
	home, err := e.home()
	if err != nil {
		return attach.Locations{}, err
	}
	loc := attach.Locations{Home: home}
	if d, ok := e.lookupEnv("CODEX_HOME"); ok && d != "" {
		loc.CodexHome = d
	}
	loc.PiAgent, _ = e.lookupEnv("PI_CODING_AGENT_DIR")
	return loc, nil
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
