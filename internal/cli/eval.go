package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/eval"
	"github.com/vigil-dev/vigil/internal/replay"
	"github.com/vigil-dev/vigil/internal/rulesadvisor"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
)

// modelReviewer builds the replayed advisor for --reviewer model or gate:
// its model from --advisor-model or modelRoles.advisor, resolved as a
// live session's advisor resolves it, secrets redacted as there.
func (c *evalCmd) modelReviewer(e *env, settings rules.Settings) (*replay.Reviewer, llm.Price, error) {
	reg, err := e.registry(c.ModelsFile)
	if err != nil {
		return nil, llm.Price{}, err
	}
	cfg := &supervise.Config{Registry: reg, ModelRef: c.Model, Settings: &config.Settings{}, Redactor: history.NewRedactor(os.Environ(), reg.Secrets())}
	if c.Model == "" {
		dir, err := e.agentDir()
		if err != nil {
			return nil, llm.Price{}, err
		}
		if cfg.Settings, err = config.Load(config.Options{AgentDir: dir}); err != nil {
			return nil, llm.Price{}, err
		}
	}
	var gate func() advisor.Detector
	if c.Reviewer == "gate" {
		gate = func() advisor.Detector { return rulesadvisor.New(settings) }
	}
	r, price, err := cfg.Replayer(gate)
	if errors.Is(err, supervise.ErrNoModel) {
		return nil, llm.Price{}, errors.New("--reviewer " + c.Reviewer + " needs a model: pass --advisor-model REF or set modelRoles.advisor")
	}
	return r, price, err
}

// evalCmd is `vigil eval`: a reviewer scored against a labelled set
// (docs/review.md describes the labels file and the figures).
type evalCmd struct {
	Labels      []string `arg:"" name:"labels" help:"Labels files (TSV: file, label, onset, note; or the shared corpus's local_file, label, evidence); transcript paths are relative to each. Transcripts not on disk are left out."`
	Only        []string `name:"only" placeholder:"SOURCE" help:"Score only the runs of these sources (a source like devset/codex, a set like devset, or a format like codex)."`
	LeaveOut    []string `name:"leave-out" placeholder:"SOURCE" help:"Leave the runs of these sources out (to check a change on a source it was not tuned on)."`
	Reviewer    string   `default:"rules" enum:"rules,model,gate" help:"The reviewer to score: rules (the zero-token detectors), model (the advisor model replayed step by step), or gate (the model, reviewing only where a detector fired)."`
	Model       string   `name:"advisor-model" placeholder:"REF" help:"The advisor model for --reviewer model or gate (default: modelRoles.advisor)."`
	ModelsFile  string   `name:"models-file" placeholder:"FILE" help:"models.yml to use instead of the agent folder's."`
	Rules       string   `name:"rules" placeholder:"FILE" help:"Detector thresholds (YAML) instead of the defaults."`
	Tolerance   int      `default:"3" help:"How many steps a detection may be off the labelled onset."`
	MinSeverity string   `name:"min-severity" placeholder:"SEVERITY" help:"Ignore findings below SEVERITY (nit, concern or blocker)."`
	JSON        bool     `name:"json" help:"Print the report as one JSON object."`
}

func (c *evalCmd) Run(e *env) error {
	if c.Tolerance < 1 {
		return &exitError{code: exitUsage, err: fmt.Errorf("eval: --tolerance must be at least 1, got %d", c.Tolerance)}
	}
	opt := eval.Options{Tolerance: c.Tolerance, Only: c.Only, LeaveOut: c.LeaveOut}
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
	var reviewer eval.Reviewer = eval.RulesReviewer{Settings: settings}
	var replayed *replay.Reviewer
	var price llm.Price
	if c.Reviewer != "rules" {
		replayed, price, err = c.modelReviewer(e, settings)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("eval: %w", err)}
		}
		reviewer = replayed
	}
	rep, err := eval.Run(e.ctx, c.Labels, reviewer, opt)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("eval: %w", err)}
	}
	if replayed != nil && !c.JSON {
		defer func() {
			u := replayed.Spent()
			fmt.Fprintf(e.stdout, "advisor tokens: %d input, %d cache read, %d cache write, %d output; $%.4f at list price\n",
				u.Input, u.CacheRead, u.CacheWrite, u.Output, price.Cost(u))
		}()
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
