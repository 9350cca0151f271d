package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/internal/attach"
	"github.com/vigil-dev/vigil/internal/sidecar"
	"github.com/vigil-dev/vigil/internal/tui"
)

// statusCmd is `vigil status`: where vigil is attached, and the sidecars
// that watch sessions now.
type statusCmd struct {
	JSON bool `name:"json" help:"Print one JSON object instead of the text report."`
}

// statusReport is what `vigil status --json` prints.
type statusReport struct {
	Attached []attachedStatus `json:"attached"`
	Sidecars []sidecarStatus  `json:"sidecars"`
	Problems []string         `json:"problems,omitempty"`
}

type attachedStatus struct {
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
	MCP *attach.MCPReport `json:"mcp,omitempty"`
	// Shared: the file is meant to be committed (Claude Code's project
	// settings.json), where an older vigil wrote its hooks.
	Shared bool `json:"shared,omitempty"`
	// NotLoaded says why the agent may not load vigil's extension (pi,
	// omp): its version, or a project pi does not trust.
	NotLoaded []string `json:"not_loaded,omitempty"`
}

type sidecarStatus struct {
	sidecar.Info
	Stats *sidecar.Stats `json:"stats,omitempty"`
	Error string         `json:"error,omitempty"`
}

func (c *statusCmd) Run(e *env) error {
	var rep statusReport
	home, err := e.home()
	if err != nil {
		return err
	}
	loc := attach.Locations{Home: home}
	if d, ok := e.lookupEnv("CODEX_HOME"); ok && d != "" {
		loc.CodexHome = d
	}
	loc.PiAgent, _ = e.lookupEnv("PI_CODING_AGENT_DIR")
	if cwd, err := os.Getwd(); err == nil {
		loc.Project = contextfiles.ProjectRoot(cwd)
	}
	ats, err := attach.Status(loc)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	for _, a := range ats {
		s := attachedStatus{Agent: string(a.Agent), Scope: string(a.Scope), File: a.File, Attached: a.Attached(), Missing: a.Missing, Shared: a.Shared}
		for _, en := range a.Entries {
			s.Events = append(s.Events, en.Event)
			if en.URL != "" {
				s.HTTP = append(s.HTTP, en.Event)
			}
		}
		for _, b := range a.Binaries {
			name := b.Path
			if !b.Exists {
				name += " (missing)"
			}
			s.Binaries = append(s.Binaries, name)
		}
		if a.Err != nil {
			s.Error = a.Err.Error()
		}
		s.MCP = a.MCP.Report()
		if a.Attached() && attach.UsesExtension(a.Agent) {
			s.NotLoaded = e.extensionProblems(a, loc)
		}
		rep.Attached = append(rep.Attached, s)
	}
	dir, err := sidecar.RuntimeDir(e.lookupEnv)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	} else {
		infos, err := dir.List()
		if err != nil {
			rep.Problems = append(rep.Problems, err.Error())
		}
		for _, in := range infos {
			s := sidecarStatus{Info: in}
			st, err := sidecarStats(e.ctx, in.Socket)
			if err != nil {
				s.Error = err.Error()
			} else {
				s.Stats = &st
			}
			rep.Sidecars = append(rep.Sidecars, s)
		}
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		return enc.Encode(rep)
	}
	printStatus(e, rep)
	return nil
}

// sidecarStats asks a sidecar for its counters.
func sidecarStats(ctx context.Context, sock string) (sidecar.Stats, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://sidecar/status", nil)
	resp, err := client.Do(req)
	if err != nil {
		return sidecar.Stats{}, fmt.Errorf("not answering: %w", err)
	}
	defer resp.Body.Close()
	var st sidecar.Stats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	return st, nil
}

// sidecarActivity is a sidecar's Activity column.
func sidecarActivity(st sidecar.Stats) string {
	return fmt.Sprintf("%s, %s, %s (%s), %d withheld", tui.Plural(st.Hooks, "hook"), tui.Plural(st.Steps, "step"), tui.Plural(st.Delivered, "note"), tui.Plural(st.Blocks, "Stop block"), st.Withheld)
}

func printStatus(e *env, rep statusReport) {
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "Attached\tScope\tFile\tState")
	for _, a := range rep.Attached {
		state := "not attached"
		switch {
		case a.Error != "":
			state = "unreadable: " + a.Error
		case a.Attached && len(a.Missing) > 0:
			state = fmt.Sprintf("partly attached (missing %s; run vigil attach again)", strings.Join(a.Missing, ", "))
		case a.Attached:
			state = fmt.Sprintf("attached: %s, %s", tui.Plural(len(a.Events), "hook"), strings.Join(a.Binaries, ", "))
			if len(a.HTTP) > 0 {
				state += fmt.Sprintf(" (%d over HTTP to vigil hookd)", len(a.HTTP))
			}
		}
		if len(a.NotLoaded) > 0 {
			state += "; it may not be loaded (below)"
		}
		if a.Shared && a.Attached {
			state += "; this file is shared with the project and holds your vigil's path (and hookd's secret): run vigil attach again to move the hooks to settings.local.json, or vigil detach"
		}
		switch m := a.MCP; {
		case m == nil:
		case m.Error != "":
			state += "; MCP settings unreadable: " + m.Error
		case m.Foreign:
			state += "; the MCP server vigil in " + m.File + " is not vigil's"
		case m.Registered:
			state += "; ask_advisor: MCP server in " + m.File
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", a.Agent, a.Scope, a.File, state)
	}
	w.Flush()
	for _, a := range rep.Attached {
		for _, p := range a.NotLoaded {
			fmt.Fprintf(e.stdout, "%s, %s: %s\n", a.Agent, a.File, p)
		}
	}
	fmt.Fprintln(e.stdout)
	if len(rep.Sidecars) == 0 {
		fmt.Fprintln(e.stdout, "No live sidecars.")
	} else {
		w = tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "Sidecar\tSession\tPID\tSince\tReviewer\tActivity\tTranscript")
		for _, s := range rep.Sidecars {
			act := s.Error
			if s.Stats != nil {
				act = sidecarActivity(*s.Stats)
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", s.Agent, s.Key.Session, s.PID, s.Started.Local().Format("Jan 2 15:04"), s.Reviewer, act, s.Transcript)
		}
		w.Flush()
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stdout, "problem:", p)
	}
}

// extensionProblems says why the agent on PATH may not load vigil's
// extension attached in a.
func (e *env) extensionProblems(a attach.Attachment, loc attach.Locations) []string {
	path, _ := e.lookupEnv("PATH")
	return attach.LoadProblems(a.Agent, a.Scope, a.File, attach.FindAgent(e.ctx, a.Agent, path), loc.PiAgentDir())
}
