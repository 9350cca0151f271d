package cli

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/vigil-dev/vigil/internal/stats"
	"github.com/vigil-dev/vigil/internal/tui"
	"github.com/vigil-dev/vigil/session"
)

type sessionsCmd struct {
	All        bool   `help:"List the sessions of every folder, not only this one's."`
	JSON       bool   `help:"Print one JSON document (see docs/stats.md) instead of a table."`
	ModelsFile string `name:"models-file" help:"models.yml to price with instead of the agent folder's." type:"path" placeholder:"PATH"`
}

// sessionsJSON is what `vigil sessions --json` prints.
type sessionsJSON struct {
	Version  int             `json:"version"`
	Root     string          `json:"root"`
	Cwd      string          `json:"cwd,omitempty"`
	Sessions []stats.Session `json:"sessions"`
	Problems []stats.Problem `json:"problems"`
}

func (c *sessionsCmd) Run(e *env) error {
	root, err := e.sessionsDir()
	if err != nil {
		return err
	}
	opts := stats.Options{Price: e.pricer(c.ModelsFile)}
	if !c.All {
		if opts.Cwd, err = os.Getwd(); err != nil {
			return fmt.Errorf("find the working folder: %w", err)
		}
	}
	r, err := stats.Scan(root, opts)
	if err != nil {
		return err
	}
	slices.SortStableFunc(r.Sessions, func(a, b stats.Session) int {
		return cmp.Or(b.Started.Compare(a.Started), cmp.Compare(a.File, b.File))
	})
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sessionsJSON{Version: stats.Version, Root: r.Root, Cwd: r.Cwd, Sessions: r.Sessions, Problems: r.Problems})
	}
	if len(r.Sessions) == 0 {
		if c.All {
			fmt.Fprintf(e.stdout, "no sessions under %s\n", root)
		} else {
			fmt.Fprintf(e.stdout, "no sessions of %s under %s (--all lists every folder's)\n", r.Cwd, root)
		}
	} else if err := writeSessions(e.stdout, r.Sessions, c.All); err != nil {
		return err
	}
	writeProblems(e.stdout, r.Problems)
	return nil
}

// writeSessions prints one row per session, and under it one per subagent
// and advisor transcript. The advisor is shown read-only: it is never a
// peer that can be messaged, resumed or stopped.
func writeSessions(w io.Writer, sessions []stats.Session, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	project := func(s string) string {
		if all {
			return s + "\t"
		}
		return ""
	}
	fmt.Fprintln(tw, "SESSION\tSTARTED\tACTIVE\t"+project("PROJECT")+"PROMPTS\tTURNS\tTOKENS\tCOST\tTITLE\tFILE")
	now := time.Now()
	for _, s := range sessions {
		file := s.File
		if s.Missing {
			file += " (gone; its artifacts remain)"
		}
		active, title := "-", s.Title
		if !s.Updated.IsZero() {
			active = tui.Age(now.Sub(s.Updated))
		}
		if r := []rune(title); len(r) > 40 {
			title = string(r[:39]) + "…"
		}
		if title == "" {
			title = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%d\t%d\t%s\t%s\t%s\t%s\n", s.ID, started(s), active, project(s.Cwd), s.Prompts, s.Primary.Turns,
			tokens64(s.Primary.Tokens.Total()), cost(s.Primary), title, file)
		child := func(name string, t stats.Transcript) {
			fmt.Fprintf(tw, "  %s\t\t\t%s\t%d\t%s\t%s\t\t%s\n", name, project(""), t.Turns, tokens64(t.Tokens.Total()), cost(t.Usage), t.File)
		}
		// A subagent's own advisor (advisor.subagents) follows it.
		shown := make([]bool, len(s.Advisors))
		for _, sub := range s.Subagents {
			child("subagent "+sub.ID, sub)
			for i, a := range s.Advisors {
				if a.Parent == sub.ID && a.Parent != s.ID {
					child(fmt.Sprintf("  advisor of %s (read-only), %s", sub.ID, reviews(a.Reviews)), a)
					shown[i] = true
				}
			}
		}
		for i, a := range s.Advisors {
			if !shown[i] {
				child("advisor (read-only), "+reviews(a.Reviews), a)
			}
		}
	}
	return tw.Flush()
}

func reviews(n int) string { return tui.Plural(n, "review") }

// refuseAdvisorTranscript returns an error when path is an advisor's
// transcript: by name, or by its header's parent kind. The advisor is never
// a peer: nothing resumes, messages or stops it through its transcript. It
// reads only the header; a file it cannot read is left for the caller's
// open to report.
func refuseAdvisorTranscript(path string) error {
	kind, parent, from := "", "", ""
	if f, err := os.Open(path); err == nil {
		line, _ := bufio.NewReader(io.LimitReader(f, 1<<20)).ReadBytes('\n')
		f.Close()
		if h, err := session.DecodeHeader(line); err == nil && h.Parent != nil {
			kind, parent, from = h.Parent.Kind, h.Parent.ID, h.Parent.Path
		}
	}
	if kind == session.ParentAttached {
		return fmt.Errorf("resume %s: this is the record vigil keeps of another agent's session (%s, transcript %s) that it watched through hooks; resume it in that agent", path, parent, from)
	}
	if kind != session.ParentAdvisor && filepath.Base(path) != session.AdvisorTranscript {
		return nil
	}
	watched := "the session it watches"
	if parent != "" {
		watched = "session " + parent
	}
	return fmt.Errorf("resume %s: this is an advisor's transcript, which is read-only: the advisor cannot be resumed, messaged or stopped; resume %s instead (vigil sessions lists it)", path, watched)
}
