package attach

import (
	"context"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/internal/words"
)

// AttachmentReport is what `vigil status` says of one attachment (its
// --json output: one element of "attached").
type AttachmentReport struct {
	Agent    string   `json:"agent"`
	Scope    string   `json:"scope"`
	File     string   `json:"file"`
	Attached bool     `json:"attached"`
	Events   []string `json:"events,omitempty"`
	// HTTP are the events sent to vigil hookd as HTTP hooks.
	HTTP     []string `json:"http,omitempty"`
	Missing  []string `json:"missing,omitempty"`
	Binaries []string `json:"binaries,omitempty"`
	Error    string   `json:"error,omitempty"`
	// MCP is vigil's MCP server (ask_advisor) in the agent's MCP settings.
	MCP *MCPReport `json:"mcp,omitempty"`
	// Shared: the file is meant to be committed (Claude Code's project
	// settings.json), where an older vigil wrote its hooks.
	Shared bool `json:"shared,omitempty"`
	// NotLoaded says why the agent may not load vigil's extension (pi,
	// omp): its version, or a project pi does not trust.
	NotLoaded []string `json:"not_loaded,omitempty"`
}

// Report is what `vigil status` says of a. For vigil's extension, it
// asks the agent found on pathList, and pi's agent folder piAgentDir,
// what may keep it from loading ([LoadProblems]).
func (a Attachment) Report(ctx context.Context, pathList, piAgentDir string) AttachmentReport {
	r := AttachmentReport{Agent: string(a.Agent), Scope: string(a.Scope), File: a.File, Attached: a.Attached(), Missing: a.Missing, Shared: a.Shared}
	for _, en := range a.Entries {
		r.Events = append(r.Events, en.Event)
		if en.URL != "" {
			r.HTTP = append(r.HTTP, en.Event)
		}
	}
	for _, b := range a.Binaries {
		name := b.Path
		if !b.Exists {
			name += " (missing)"
		}
		r.Binaries = append(r.Binaries, name)
	}
	if a.Err != nil {
		r.Error = a.Err.Error()
	}
	r.MCP = a.MCP.Report()
	if a.Attached() && UsesExtension(a.Agent) {
		r.NotLoaded = LoadProblems(a.Agent, a.Scope, a.File, FindAgent(ctx, a.Agent, pathList), piAgentDir)
	}
	return r
}

// State is the State column of `vigil status` for r.
func (r AttachmentReport) State() string {
	state := "not attached"
	switch {
	case r.Error != "":
		state = "unreadable: " + r.Error
	case r.Attached && len(r.Missing) > 0:
		state = fmt.Sprintf("partly attached (missing %s; run vigil attach again)", strings.Join(r.Missing, ", "))
	case r.Attached:
		state = fmt.Sprintf("attached: %s, %s", words.Plural(len(r.Events), "hook"), strings.Join(r.Binaries, ", "))
		if len(r.HTTP) > 0 {
			state += fmt.Sprintf(" (%d over HTTP to vigil hookd)", len(r.HTTP))
		}
	}
	if len(r.NotLoaded) > 0 {
		state += "; it may not be loaded (below)"
	}
	if r.Shared && r.Attached {
		state += "; this file is shared with the project and holds your vigil's path (and hookd's secret): run vigil attach again to move the hooks to settings.local.json, or vigil detach"
	}
	switch m := r.MCP; {
	case m == nil:
	case m.Error != "":
		state += "; MCP settings unreadable: " + m.Error
	case m.Foreign:
		state += "; the MCP server vigil in " + m.File + " is not vigil's"
	case m.Registered:
		state += "; ask_advisor: MCP server in " + m.File
	}
	return state
}
