package cli

import (
	"encoding/json"
	"fmt"

	"github.com/vigil-dev/vigil/internal/eval"
	"github.com/vigil-dev/vigil/rules"
)

// evalCmd is `vigil eval`: a reviewer scored against a labelled set
// (docs/review.md describes the labels file and the figures).
type evalCmd struct {
	Labels      string `arg:"" name:"labels" help:"The labels file (TSV: file, label, onset, note); transcript paths are relative to it."`
	Reviewer    string `default:"rules" help:"The reviewer to score; only \"rules\" (the zero-token detectors) exists so far."`
	Rules       string `name:"rules" placeholder:"FILE" help:"Detector thresholds (YAML) instead of the defaults."`
	Tolerance   int    `default:"3" help:"How many steps a detection may be off the labelled onset."`
	MinSeverity string `name:"min-severity" placeholder:"SEVERITY" help:"Ignore findings below SEVERITY (nit, concern or blocker)."`
	JSON        bool   `name:"json" help:"Print the report as one JSON object."`
}

func (c *evalCmd) Run(e *env) error {
	if c.Reviewer != "rules" {
		return &exitError{code: exitUsage, err: fmt.Errorf("eval: unknown reviewer %q: only \"rules\" exists so far (model reviewers and gates are not built yet)", c.Reviewer)}
	}
	if c.Tolerance < 1 {
		return &exitError{code: exitUsage, err: fmt.Errorf("eval: --tolerance must be at least 1, got %d", c.Tolerance)}
	}
	opt := eval.Options{Tolerance: c.Tolerance}
	if c.MinSeverity != "" {
		s, err := rules.ParseSeverity(c.MinSeverity)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--min-severity: %w", err)}
		}
		opt.MinSeverity = s
	}
	settings, err := loadRules(c.Rules)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	rep, err := eval.Run(e.ctx, c.Labels, eval.RulesReviewer{Settings: settings}, opt)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("eval: %w", err)}
	}
	if c.JSON {
		data, err := json.Marshal(rep)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("eval: encode report: %w", err)}
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", data)
		return err
	}
	return rep.WriteText(e.stdout)
}
