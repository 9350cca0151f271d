package eval

import (
	"context"
	"fmt"
	"iter"
	"os"
	"sort"

	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// Options tunes an evaluation.
type Options struct {
	// Tolerance is how many steps a detection may be off the onset (k in
	// the package doc). Default 3.
	Tolerance int
	// MinSeverity ignores findings below it; "" counts every finding.
	MinSeverity rules.Severity
}

// RunResult is how a reviewer did on one labelled run.
type RunResult struct {
	Label
	// Steps is how many steps the run has.
	Steps int `json:"steps"`
	// Findings are the counted findings (at or above MinSeverity).
	Findings []rules.Finding `json:"findings,omitempty"`
	// Detected is set for an offcourse run with a finding that matches its
	// episode; Detection is the step of the first such finding and Delay
	// its distance after the onset (0 when before).
	Detected  bool `json:"detected,omitempty"`
	Detection int  `json:"detection,omitempty"`
	Delay     int  `json:"delay,omitempty"`
	// EarlyFlags counts, for an offcourse run, findings that ended before
	// onset−Tolerance.
	EarlyFlags int `json:"early_flags,omitempty"`
	// EvalNote says what the evaluation tolerated, such as extra runs in
	// the file.
	EvalNote string `json:"eval_note,omitempty"`
	// Error says why the run could not be reviewed; such runs are left out
	// of the metrics.
	Error string `json:"error,omitempty"`
}

// Report is the outcome of an evaluation.
type Report struct {
	// Tolerance and MinSeverity are the options the report was made with.
	Tolerance   int            `json:"tolerance"`
	MinSeverity rules.Severity `json:"min_severity,omitempty"`
	// Runs are the labelled runs in the labels file's order.
	Runs []RunResult `json:"runs"`

	// Offcourse, Clean and Uncertain count the runs by label; Failed
	// counts runs that could not be read or reviewed, which are left out.
	Offcourse int `json:"offcourse"`
	Clean     int `json:"clean"`
	Uncertain int `json:"uncertain"`
	Failed    int `json:"failed,omitempty"`

	// Detected and DetectedWithin count offcourse runs detected at all
	// and within Tolerance steps of the onset; Flagged counts clean runs
	// with a finding.
	Detected       int `json:"detected"`
	DetectedWithin int `json:"detected_within"`
	Flagged        int `json:"flagged_clean"`

	// Precision, Recall and RecallWithin (Tolerance steps of the onset)
	// are fractions from 0 to 1, as the package doc defines them.
	Precision    float64 `json:"precision"`
	Recall       float64 `json:"recall"`
	RecallWithin float64 `json:"recall_within"`
	// MeanDelay and MedianDelay are over detected runs, in steps.
	MeanDelay   float64 `json:"mean_delay"`
	MedianDelay float64 `json:"median_delay"`

	// CleanSteps and CleanFlags are the steps and findings of clean runs;
	// FalseFlagsPer100 is CleanFlags per 100 CleanSteps.
	CleanSteps       int     `json:"clean_steps"`
	CleanFlags       int     `json:"clean_flags"`
	FalseFlagsPer100 float64 `json:"false_flags_per_100_clean_steps"`
	// EarlyFlags counts findings in offcourse runs before onset−Tolerance.
	EarlyFlags int `json:"early_flags"`

	// ByDetector counts each detector's findings by the label of the run.
	ByDetector map[string]DetectorCounts `json:"by_detector"`
}

// DetectorCounts is one detector's findings by run label.
type DetectorCounts struct {
	// Matching counts findings that matched an offcourse episode; Early
	// those before it; Clean those in clean runs; Uncertain those in
	// uncertain runs.
	Matching  int `json:"matching"`
	Early     int `json:"early"`
	Clean     int `json:"clean"`
	Uncertain int `json:"uncertain"`
}

// Run evaluates a reviewer on the runs a labels file lists.
func Run(ctx context.Context, labelsPath string, r Reviewer, opt Options) (*Report, error) {
	labels, err := ReadLabels(labelsPath)
	if err != nil {
		return nil, err
	}
	return Evaluate(ctx, labels, r, opt)
}

// Evaluate runs a reviewer over labelled runs and scores it. A run that
// cannot be read or reviewed is reported with its error and left out of
// the metrics; only a cancelled ctx ends the evaluation early.
func Evaluate(ctx context.Context, labels []Label, r Reviewer, opt Options) (*Report, error) {
	if opt.Tolerance <= 0 {
		opt.Tolerance = 3
	}
	rep := &Report{Tolerance: opt.Tolerance, MinSeverity: opt.MinSeverity, ByDetector: map[string]DetectorCounts{}}
	for _, l := range labels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := review(ctx, l, r, opt)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res = RunResult{Label: l, Error: err.Error()}
		}
		rep.Runs = append(rep.Runs, res)
	}
	rep.score()
	return rep, nil
}

// review runs the reviewer over one labelled transcript and judges its
// findings against the label.
func review(ctx context.Context, l Label, r Reviewer, opt Options) (RunResult, error) {
	res := RunResult{Label: l}
	f, err := os.Open(l.Path)
	if err != nil {
		return res, fmt.Errorf("%s: %w", l.File, err)
	}
	defer f.Close()
	tr, err := transcript.NewReader(f, l.Path)
	if err != nil {
		return res, err
	}
	steps, done := firstRun(tr, &res)
	found, err := r.Review(ctx, steps)
	if err != nil {
		return res, fmt.Errorf("review %s: %w", l.File, err)
	}
	// Count the steps the reviewer did not consume.
	for range steps {
	}
	if err := done(); err != nil {
		return res, err
	}
	for _, fd := range found {
		if opt.MinSeverity != "" && fd.Severity.Rank() < opt.MinSeverity.Rank() {
			continue
		}
		res.Findings = append(res.Findings, fd)
	}
	if l.Class == Offcourse {
		for _, fd := range res.Findings {
			if fd.EndStep < l.Onset-opt.Tolerance {
				res.EarlyFlags++
				continue
			}
			if !res.Detected || fd.EndStep < res.Detection {
				res.Detected, res.Detection = true, fd.EndStep
			}
		}
		if res.Detected {
			res.Delay = max(0, res.Detection-l.Onset)
		}
	}
	return res, nil
}

// firstRun returns the steps of the reader's first run, which may be
// ranged over more than once (later passes continue where the previous
// stopped), and a function that reports the read error, if any, once the
// steps are used up. It counts the steps in res.Steps.
func firstRun(tr *transcript.Reader, res *RunResult) (iter.Seq[transcript.Step], func() error) {
	next, stop := iter.Pull2(tr.Items())
	var readErr error
	runs := 0
	finished := false
	var sp transcript.Stepper
	var queue []transcript.Step
	pull := func() (transcript.Step, bool) {
		for len(queue) == 0 {
			if finished {
				return transcript.Step{}, false
			}
			it, err, ok := next()
			switch {
			case !ok:
				finished = true
				if st, ok := sp.Flush(); ok {
					queue = append(queue, st)
				}
			case err != nil:
				readErr, finished = err, true
			case it.Run != nil:
				runs++
				if runs > 1 {
					finished = true
					res.EvalNote = "the file holds more than one run; only the first is evaluated"
					if st, ok := sp.Flush(); ok {
						queue = append(queue, st)
					}
				}
			default:
				queue = append(queue, sp.Add(it.Entry)...)
			}
		}
		st := queue[0]
		queue = queue[1:]
		res.Steps++
		return st, true
	}
	seq := func(yield func(transcript.Step) bool) {
		for {
			st, ok := pull()
			if !ok || !yield(st) {
				return
			}
		}
	}
	done := func() error {
		stop()
		return readErr
	}
	return seq, done
}

// score computes the metrics from the runs.
func (rep *Report) score() {
	var delays []int
	for _, r := range rep.Runs {
		if r.Error != "" {
			rep.Failed++
			continue
		}
		for _, fd := range r.Findings {
			c := rep.ByDetector[fd.Detector]
			switch {
			case r.Class == Clean:
				c.Clean++
			case r.Class == Uncertain:
				c.Uncertain++
			case fd.EndStep < r.Onset-rep.Tolerance:
				c.Early++
			default:
				c.Matching++
			}
			rep.ByDetector[fd.Detector] = c
		}
		switch r.Class {
		case Offcourse:
			rep.Offcourse++
			rep.EarlyFlags += r.EarlyFlags
			if r.Detected {
				rep.Detected++
				delays = append(delays, r.Delay)
				if r.Delay <= rep.Tolerance {
					rep.DetectedWithin++
				}
			}
		case Clean:
			rep.Clean++
			rep.CleanSteps += r.Steps
			rep.CleanFlags += len(r.Findings)
			if len(r.Findings) > 0 {
				rep.Flagged++
			}
		case Uncertain:
			rep.Uncertain++
		}
	}
	rep.Precision = ratio(rep.Detected, rep.Detected+rep.Flagged)
	rep.Recall = ratio(rep.Detected, rep.Offcourse)
	rep.RecallWithin = ratio(rep.DetectedWithin, rep.Offcourse)
	rep.FalseFlagsPer100 = 100 * ratio(rep.CleanFlags, rep.CleanSteps)
	if len(delays) > 0 {
		sum := 0
		for _, d := range delays {
			sum += d
		}
		rep.MeanDelay = float64(sum) / float64(len(delays))
		sort.Ints(delays)
		mid := len(delays) / 2
		if len(delays)%2 == 1 {
			rep.MedianDelay = float64(delays[mid])
		} else {
			rep.MedianDelay = float64(delays[mid-1]+delays[mid]) / 2
		}
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
