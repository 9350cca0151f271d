package attach

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// This file registers vigil's MCP server (`vigil mcp`, which offers the
// agent ask_advisor) with Claude Code and Codex, next to the hooks:
// Claude Code reads a project's servers that are not shared from
// "projects"[PROJECT]."mcpServers" of ~/.claude.json (shared ones, which
// vigil no longer writes, from PROJECT/.mcp.json) and the user's from the
// top-level "mcpServers" of ~/.claude.json; Codex reads
// [mcp_servers.NAME] tables from $CODEX_HOME/config.toml. The entry is
// named [MCPServerName] and runs `VIGIL mcp`.

// MCPServerName is the name vigil's MCP server is registered under, so
// that Claude Code calls its tool mcp__vigil__ask_advisor.
const MCPServerName = "vigil"

// MCPEntry is the MCP server named [MCPServerName] in a settings file.
type MCPEntry struct {
	// Key is where it is: mcpServers.vigil, or mcp_servers.vigil.
	Key string
	// Command and Args are what it starts.
	Command string
	Args    []string
	// Ours tells whether it is vigil's: Command names a file whose name
	// starts with vigil (not the hook binary), and Args are "mcp" and
	// flags. An entry of that name that is not vigil's is left alone.
	Ours bool
}

// MCPFile returns the file where a's MCP servers are registered at
// scope s: Claude Code's HOME/.claude.json (for the project scope, under
// the project: [Locations.MCPProject]), Codex's
// PROJECT/.codex/config.toml or CODEX_HOME/config.toml. pi and omp have
// no MCP servers ("" and no error).
func (l Locations) MCPFile(a Agent, s Scope) (string, error) {
	if a != ClaudeCode && a != Codex {
		return "", nil
	}
	hooks, err := l.File(a, s)
	if err != nil {
		return "", err
	}
	if a == Codex {
		return filepath.Join(filepath.Dir(hooks), "config.toml"), nil
	}
	if s == Project && l.Home == "" {
		return "", errors.New("no home folder: set HOME")
	}
	return filepath.Join(l.Home, ".claude.json"), nil
}

// MCPProject is where in [Locations.MCPFile] a's MCP servers at scope s
// are: for Claude Code's project scope, the project's servers that are
// not shared (its local scope, under "projects"[PROJECT] in
// ~/.claude.json: the entry names this user's vigil binary, which a
// shared PROJECT/.mcp.json must not); "" (the top level) otherwise.
func (l Locations) MCPProject(a Agent, s Scope) string {
	if a == ClaudeCode && s == Project {
		return l.Project
	}
	return ""
}

// SharedMCPFile is the MCP settings file meant to be committed where an
// older vigil registered its MCP server: Claude Code's
// PROJECT/.mcp.json; "" for the others. Attach and detach remove
// vigil's entry from it.
func (l Locations) SharedMCPFile(a Agent, s Scope) string {
	if a != ClaudeCode || s != Project || l.Project == "" {
		return ""
	}
	return filepath.Join(l.Project, ".mcp.json")
}

// MCPBinary returns the vigil binary the MCP entry runs for the binary
// the hooks run: for the hook binary (vigil-hook), the vigil beside it,
// which is what it starts sidecars with; otherwise binary itself.
func MCPBinary(binary string) string {
	if !IsHookBinary(binary) {
		return binary
	}
	if r, err := filepath.EvalSymlinks(binary); err == nil {
		binary = r
	}
	return filepath.Join(filepath.Dir(binary), "vigil")
}

// MCPEnvVars are the variables Codex must pass to `vigil mcp` (its
// env_vars): where the sidecars' sockets are (sidecar.RuntimeDir).
// Claude Code passes its whole environment.
func MCPEnvVars() []string { return []string{"VIGIL_RUNTIME_DIR", "XDG_RUNTIME_DIR", "TMPDIR"} }

// MCPArgs are the arguments of vigil's MCP entry.
func MCPArgs() []string { return []string{"mcp"} }

// isVigilMCP tells whether command and args start vigil's MCP server.
func isVigilMCP(command string, args []string) bool {
	return strings.HasPrefix(filepath.Base(command), "vigil") && !IsHookBinary(command) &&
		len(args) >= 1 && args[0] == "mcp"
}

// foreignWarning is the warning for an entry named vigil that is not
// vigil's: attach leaves it, and so ask_advisor is not registered.
func foreignWarning(name string, en *MCPEntry) string {
	what := "no command vigil recognises"
	if en.Command != "" {
		what = "runs " + strings.Join(append([]string{ShellQuote(en.Command)}, quoteAll(en.Args)...), " ")
	}
	return fmt.Sprintf("%s: the MCP server %s is not vigil's (%s): vigil leaves it alone, so the agent has no ask_advisor; rename or remove it and attach again", name, en.Key, what)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = ShellQuote(s)
	}
	return out
}

// AttachMCP returns data, the content of a's MCP settings file (empty for
// a new one), with vigil's MCP server registered as [MCPServerName],
// running `vigil mcp`: added when there is none, its command brought up to
// date when it is vigil's and names another binary, and nothing else
// changed. An entry of that name that is not vigil's is left alone, with
// a warning. Errors are [*yamlfile.Error]s naming name, line and column.
func AttachMCP(data []byte, name string, a Agent, vigil string) (*Result, error) {
	switch a {
	case ClaudeCode:
		return attachMCPJSON(data, name, vigil, "")
	case Codex:
		return attachMCPTOML(data, name, vigil)
	}
	return nil, fmt.Errorf("%s has no MCP servers vigil registers", a)
}

// DetachMCP returns data with vigil's MCP entry removed (and Claude
// Code's "mcpServers" when that leaves it empty). An entry of that name
// that is not vigil's stays.
func DetachMCP(data []byte, name string, a Agent) (*Result, error) {
	switch a {
	case ClaudeCode:
		return detachMCPJSON(data, name, "")
	case Codex:
		return detachMCPTOML(data, name)
	}
	return &Result{Data: data}, nil
}

// MCPEntryIn returns the entry named [MCPServerName] in data, nil when
// there is none.
func MCPEntryIn(data []byte, name string, a Agent) (*MCPEntry, error) {
	return mcpEntryIn(data, name, a, "")
}

// mcpEntryIn is [MCPEntryIn] in project's local scope (Claude Code's
// ~/.claude.json) when project is set.
func mcpEntryIn(data []byte, name string, a Agent, project string) (*MCPEntry, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	switch a {
	case ClaudeCode:
		return mcpEntryJSON(data, name, project)
	case Codex:
		en, _, err := mcpEntryTOML(data, name)
		return en, err
	}
	return nil, nil
}

// PlanMCPAttach reads file and computes [AttachMCP] on it.
func PlanMCPAttach(file string, a Agent, vigil string) (*Plan, error) {
	return PlanMCPAttachIn(file, "", a, vigil)
}

// PlanMCPAttachIn is [PlanMCPAttach] for the servers of project that
// are not shared, when project is set: Claude Code's local scope, in
// file ~/.claude.json under "projects"[project] ([Locations.MCPProject]).
func PlanMCPAttachIn(file, project string, a Agent, vigil string) (*Plan, error) {
	p, err := readPlan(file)
	if err != nil {
		return nil, err
	}
	p.MCPProject = project
	if a == ClaudeCode && project != "" {
		p.Result, err = attachMCPJSON(p.Old, file, vigil, project)
	} else {
		p.Result, err = AttachMCP(p.Old, file, a, vigil)
	}
	if err != nil {
		return nil, err
	}
	if a == Codex && !p.Exists {
		// Codex's config.toml can hold keys; keep it private.
		p.Mode = 0o600
	}
	return p, nil
}

// PlanMCPDetach reads file and computes [DetachMCP] on it. A project's
// .mcp.json that this leaves holding nothing ({}), or a config.toml left
// blank, is removed: attach created it. It keeps no backup
// ([Plan.NoBackup]).
func PlanMCPDetach(file string, a Agent) (*Plan, error) {
	return PlanMCPDetachIn(file, "", a)
}

// PlanMCPDetachIn is [PlanMCPDetach] for the servers of project that are
// not shared, when project is set (see [PlanMCPAttachIn]).
func PlanMCPDetachIn(file, project string, a Agent) (*Plan, error) {
	p, err := readPlan(file)
	if err != nil {
		return nil, err
	}
	p.MCPProject = project
	if a == ClaudeCode && project != "" {
		p.Result, err = detachMCPJSON(p.Old, file, project)
	} else {
		p.Result, err = DetachMCP(p.Old, file, a)
	}
	if err != nil {
		return nil, err
	}
	p.NoBackup = true // only vigil's entry goes
	switch {
	case !p.Changed():
	case a == ClaudeCode && filepath.Base(file) == ".mcp.json" && emptyObject(p.Data),
		a == Codex && len(bytes.TrimSpace(p.Data)) == 0:
		p.Remove = true
	}
	return p, nil
}

// emptyObject tells whether data is a JSON object with no members.
func emptyObject(data []byte) bool {
	return string(bytes.Join(bytes.Fields(data), nil)) == "{}"
}

// MCPStatus is what a's MCP settings file at one scope says about vigil's
// MCP server.
type MCPStatus struct {
	File string
	// Project is set for a project's servers that are not shared
	// (Claude Code's local scope): they are under "projects"[Project]
	// in File.
	Project string
	Exists  bool
	// Entry is the server named vigil, nil when there is none.
	Entry *MCPEntry
	// Err is why File could not be read or parsed.
	Err error
}

// Registered tells whether vigil's own MCP server is registered.
func (s MCPStatus) Registered() bool { return s.Entry != nil && s.Entry.Ours }

// MCPReport is what `vigil status --json` says of the MCP server named
// vigil in one file.
type MCPReport struct {
	File string `json:"file"`
	// Project: the entry is the project's, not shared, under
	// "projects"[Project] in File (Claude Code's local scope).
	Project    string   `json:"project,omitempty"`
	Registered bool     `json:"registered"`
	Command    []string `json:"command,omitempty"`
	// Foreign: a server named vigil that is not vigil's.
	Foreign bool   `json:"foreign,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Report summarises s, nil when its file names no server vigil and
// reads.
func (s *MCPStatus) Report() *MCPReport {
	if s == nil || (s.Entry == nil && s.Err == nil) {
		return nil
	}
	r := &MCPReport{File: s.File, Project: s.Project, Registered: s.Registered()}
	if s.Entry != nil {
		r.Command, r.Foreign = append([]string{s.Entry.Command}, s.Entry.Args...), !s.Entry.Ours
	}
	if s.Err != nil {
		r.Error = s.Err.Error()
	}
	return r
}

func mcpStatusOf(a Agent, file, project string) *MCPStatus {
	st := &MCPStatus{File: file, Project: project}
	data, err := yamlfile.ReadRegular(file, MaxSettingsSize)
	if errors.Is(err, os.ErrNotExist) {
		return st
	}
	st.Exists = err == nil
	if err != nil {
		st.Err = fmt.Errorf("read %s: %w", file, err)
		return st
	}
	st.Entry, st.Err = mcpEntryIn(data, file, a, project)
	return st
}

// Registered tells whether, once written, the plan's file registers
// vigil's own MCP server.
func (p *Plan) Registered() bool {
	if p.Remove {
		return false
	}
	en, err := mcpEntryIn(p.Data, p.File, agentOfMCPFile(p.File), p.MCPProject)
	return err == nil && en != nil && en.Ours
}

// agentOfMCPFile tells which agent's MCP settings file is named file.
func agentOfMCPFile(file string) Agent {
	if strings.HasSuffix(file, ".toml") {
		return Codex
	}
	return ClaudeCode
}
