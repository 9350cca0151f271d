package attach

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// Scope is which settings file of an agent: the project's or the user's.
type Scope string

// The scopes of settings files.
const (
	Project Scope = "project"
	User    Scope = "user"
)

// Locations says where the agents' settings files are.
type Locations struct {
	// Home is the user's home folder (required).
	Home string
	// CodexHome is $CODEX_HOME; "" means Home/.codex.
	CodexHome string
	// Project is the project folder; "" leaves project files out of
	// [Status].
	Project string
	// PiAgent is $PI_CODING_AGENT_DIR, pi's agent folder; "" means
	// Home/.pi/agent.
	PiAgent string
}

// PiAgentDir returns pi's agent folder: where its user-level extensions,
// settings and trust decisions are.
func (l Locations) PiAgentDir() string {
	if l.PiAgent != "" {
		return l.PiAgent
	}
	return filepath.Join(l.Home, ".pi", "agent")
}

// File returns the hooks file of agent a at scope s: Claude Code's
// PROJECT/.claude/settings.local.json (the project's settings that are
// not shared: the hooks name this user's vigil binary, and with --http
// hookd's secret) or HOME/.claude/settings.json, Codex's
// PROJECT/.codex/hooks.json or CODEX_HOME/hooks.json; for pi and omp, the
// file of vigil's extension: PROJECT/.pi/extensions/vigil.ts or
// HOME/.pi/agent/extensions/vigil.ts (.omp for omp; pi's agent folder
// is $PI_CODING_AGENT_DIR when set).
func (l Locations) File(a Agent, s Scope) (string, error) {
	var dir string
	switch s {
	case Project:
		if l.Project == "" {
			return "", errors.New("no project folder")
		}
		dir = l.Project
	case User:
		if l.Home == "" {
			return "", errors.New("no home folder: set HOME")
		}
		dir = l.Home
	default:
		return "", fmt.Errorf("unknown scope %q", s)
	}
	switch a {
	case ClaudeCode:
		if s == Project {
			return filepath.Join(dir, ".claude", "settings.local.json"), nil
		}
		return filepath.Join(dir, ".claude", "settings.json"), nil
	case Codex:
		if s == User && l.CodexHome != "" {
			return filepath.Join(l.CodexHome, "hooks.json"), nil
		}
		return filepath.Join(dir, ".codex", "hooks.json"), nil
	case Pi, Omp:
		if a == Pi && s == User && l.PiAgent != "" {
			return filepath.Join(l.PiAgent, "extensions", ExtensionName), nil
		}
		return filepath.Join(extensionDir(a, s, dir), ExtensionName), nil
	}
	return "", fmt.Errorf("unknown agent %q", a)
}

// SharedFile returns the settings file of a at scope s that is meant to
// be committed and where vigil no longer writes, but an older vigil
// wrote its hooks: Claude Code's PROJECT/.claude/settings.json. Attach
// moves vigil's hooks out of it, detach removes them, [Status] reports
// them. "" for the others.
func (l Locations) SharedFile(a Agent, s Scope) string {
	if a != ClaudeCode || s != Project || l.Project == "" {
		return ""
	}
	return filepath.Join(l.Project, ".claude", "settings.json")
}

// Attachment is what one settings file says about vigil.
type Attachment struct {
	Agent Agent
	Scope Scope
	File  string
	// Exists tells whether File exists.
	Exists bool
	// Entries are vigil's handlers in File, in file order.
	Entries []Entry
	// Missing lists the events of [Hooks] that have no handler of vigil's
	// when there are some: an attachment that an older vigil or a hand
	// edit left partial. Attaching again adds them.
	Missing []string
	// Binaries are the distinct binaries the entries run, in order of
	// first use, and whether each exists.
	Binaries []Binary
	// Err is why File could not be read, or is not valid JSON.
	Err error
	// MCP is vigil's MCP server in the agent's MCP settings at this scope
	// (Claude Code, Codex; nil for pi and omp).
	MCP *MCPStatus
	// Shared: File is meant to be committed ([Locations.SharedFile]);
	// an older vigil attached there.
	Shared bool
}

// binaryExists tells whether a hook command's binary can be run: a file
// at its path, or on $PATH for a bare name; for the hook binary, with
// the vigil it starts sidecars with beside it.
func binaryExists(binary string) bool {
	if !strings.ContainsRune(binary, '/') {
		path, err := exec.LookPath(binary)
		if err != nil {
			return false
		}
		binary = path
	}
	info, err := os.Stat(binary)
	if err != nil || info.IsDir() {
		return false
	}
	if IsHookBinary(binary) {
		if r, err := filepath.EvalSymlinks(binary); err == nil {
			binary = r
		}
		info, err := os.Stat(filepath.Join(filepath.Dir(binary), "vigil"))
		return err == nil && !info.IsDir()
	}
	return true
}

// Binary is a binary that hook entries run.
type Binary struct {
	Path string
	// Exists tells whether it can run: the file exists, and for the
	// hook binary (vigil-hook) so does the vigil beside it, which it
	// starts sidecars with.
	Exists bool
}

// Attached tells whether the file has any handler of vigil's.
func (a Attachment) Attached() bool { return len(a.Entries) > 0 }

// Status reads every agent's settings files (the project's when
// l.Project is set, then the user's) and reports vigil's handlers in each.
// A file that cannot be read or parsed is reported in its Attachment's
// Err; the error is for locations that cannot be used at all.
func Status(l Locations) ([]Attachment, error) {
	if l.Home == "" {
		return nil, errors.New("attachment status: no home folder: set HOME")
	}
	scopes := []Scope{User}
	if l.Project != "" {
		scopes = []Scope{Project, User}
	}
	var out []Attachment
	for _, a := range Agents() {
		for _, s := range scopes {
			file, err := l.File(a, s)
			if err != nil {
				return nil, fmt.Errorf("attachment status: %w", err)
			}
			at := statusOf(a, s, file)
			if mf, _ := l.MCPFile(a, s); mf != "" {
				at.MCP = mcpStatusOf(a, mf, l.MCPProject(a, s))
			}
			out = append(out, at)
			if shared := l.SharedFile(a, s); shared != "" {
				st := statusOf(a, s, shared)
				if mf := l.SharedMCPFile(a, s); mf != "" {
					if ms := mcpStatusOf(a, mf, ""); ms.Entry != nil && ms.Entry.Ours {
						st.MCP = ms
					}
				}
				if st.Attached() || st.Err != nil && st.Exists || st.MCP != nil {
					st.Shared = true
					out = append(out, st)
				}
			}
		}
	}
	return out, nil
}

func statusOf(a Agent, s Scope, file string) Attachment {
	if UsesExtension(a) {
		return extensionStatus(a, s, file)
	}
	at := Attachment{Agent: a, Scope: s, File: file}
	data, err := yamlfile.ReadRegular(file, MaxSettingsSize)
	if errors.Is(err, os.ErrNotExist) {
		return at
	}
	at.Exists = err == nil
	if err != nil {
		at.Err = fmt.Errorf("read %s: %w", file, err)
		return at
	}
	if at.Entries, at.Err = Entries(data, file, a); at.Err != nil || len(at.Entries) == 0 {
		return at
	}
	seen := map[string]bool{}
	for _, e := range at.Entries {
		seen[e.Event] = true
		if !slices.ContainsFunc(at.Binaries, func(b Binary) bool { return b.Path == e.Binary }) {
			at.Binaries = append(at.Binaries, Binary{Path: e.Binary, Exists: binaryExists(e.Binary)})
		}
	}
	for _, h := range Hooks(a) {
		if !seen[h.Event] {
			at.Missing = append(at.Missing, h.Event)
		}
	}
	return at
}
