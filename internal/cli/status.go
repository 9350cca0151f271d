package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/internal/attach"
	"github.com/vigil-dev/vigil/internal/sidecar"
)

// statusCmd is `vigil status`: where vigil is attached, and the sidecars
// that watch sessions now.
type statusCmd struct {
	JSON bool `name:"json" help:"Print one JSON object instead of the text report."`
}

// statusReport is what `vigil status --json` prints.
type statusReport struct {
	Attached []attach.AttachmentReport `json:"attached"`
	Sidecars []sidecarStatus           `json:"sidecars"`
	Problems []string                  `json:"problems,omitempty"`
}

type sidecarStatus struct {
	sidecar.Info
	Stats *sidecar.Stats `json:"stats,omitempty"`
	Error string         `json:"error,omitempty"`
}

func (c *statusCmd) Run(e *env) error {
	var rep statusReport
	loc, err := e.locations()
	if err != nil {
		return err
	}
	if cwd, err := os.Getwd(); err == nil {
		loc.Project = contextfiles.ProjectRoot(cwd)
	}
	ats, err := attach.Status(loc)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	path, _ := e.lookupEnv("PATH")
	for _, a := range ats {
		rep.Attached = append(rep.Attached, a.Report(e.ctx, path, loc.PiAgentDir()))
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
			st, err := sidecar.AskStats(e.ctx, in.Socket)
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

func printStatus(e *env, rep statusReport) {
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "Attached\tScope\tFile\tState")
	for _, a := range rep.Attached {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", a.Agent, a.Scope, a.File, a.State())
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
				act = s.Stats.Activity()
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", s.Agent, s.Key.Session, s.PID, s.Started.Local().Format("Jan 2 15:04"), s.Reviewer, act, s.Transcript)
		}
		w.Flush()
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stdout, "problem:", p)
	}
}
