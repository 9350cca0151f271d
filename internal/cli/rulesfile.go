package cli

import (
	"fmt"
	"slices"

	"github.com/vigil-dev/vigil/internal/yamlfile"
	"github.com/vigil-dev/vigil/rules"
)

// rulesFile is the YAML of `--rules FILE`: the detectors' settings
// ([rules.Settings]) under the camelCase keys vigil's settings use. A key
// left out keeps its default.
type rulesFile struct {
	Window         int      `yaml:"window"`
	FailureRepeats int      `yaml:"failureRepeats"`
	IdenticalReads int      `yaml:"identicalReads"`
	TestReruns     int      `yaml:"testReruns"`
	SameResults    int      `yaml:"sameResults"`
	EditFlips      int      `yaml:"editFlips"`
	EditFailures   int      `yaml:"editFailures"`
	Rewrites       int      `yaml:"rewrites"`
	LoopSteps      int      `yaml:"loopSteps"`
	FollowUp       int      `yaml:"followUp"`
	FormatErrors   int      `yaml:"formatErrors"`
	Disabled       []string `yaml:"disabled"`
}

// loadRules reads detector settings from path; "" means the defaults.
func loadRules(path string) (rules.Settings, error) {
	if path == "" {
		return rules.DefaultSettings(), nil
	}
	// Bounded and regular files only: a rules file may come with a cloned
	// repository, like the settings.
	data, err := yamlfile.ReadFile(path)
	if err != nil {
		return rules.Settings{}, fmt.Errorf("read rules: %w", err)
	}
	var f rulesFile
	if err := yamlfile.Decode(path, data, &f); err != nil {
		return rules.Settings{}, err
	}
	var names []string
	for _, d := range rules.Detectors() {
		names = append(names, d.Name)
	}
	for _, d := range f.Disabled {
		if !slices.Contains(names, d) {
			return rules.Settings{}, fmt.Errorf("%s: disabled: unknown detector %q (known: %v)", path, d, names)
		}
	}
	counts := []struct {
		key string
		v   int
	}{
		{"window", f.Window}, {"failureRepeats", f.FailureRepeats}, {"identicalReads", f.IdenticalReads},
		{"testReruns", f.TestReruns}, {"sameResults", f.SameResults}, {"editFlips", f.EditFlips},
		{"editFailures", f.EditFailures}, {"rewrites", f.Rewrites},
		{"loopSteps", f.LoopSteps}, {"followUp", f.FollowUp}, {"formatErrors", f.FormatErrors},
	}
	for _, c := range counts {
		if c.v < 0 {
			return rules.Settings{}, fmt.Errorf("%s: %s: want a count of at least 1 (or leave it out for the default), got %d", path, c.key, c.v)
		}
	}
	return rules.Settings{
		Window: f.Window, FailureRepeats: f.FailureRepeats, IdenticalReads: f.IdenticalReads,
		TestReruns: f.TestReruns, SameResults: f.SameResults, EditFlips: f.EditFlips,
		EditFailures: f.EditFailures, Rewrites: f.Rewrites, LoopSteps: f.LoopSteps,
		FollowUp: f.FollowUp, FormatErrors: f.FormatErrors, Disabled: f.Disabled,
	}, nil
}
