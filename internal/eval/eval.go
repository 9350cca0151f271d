package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"sort"
	"strings"

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
	// Only, when set, keeps just the runs of these sources; LeaveOut
	// drops the runs of these. A name matches a run's source
	// ("devset/codex"), its set ("devset") or its format ("codex").
	Only, LeaveOut []string
}

// RunResult is how a reviewer did on one labelled run.
type RunResult struct {
	Label
	// Source is the run's set and format, such as "devset/codex": the
	// unit the report gives figures for.
	Source string `json:"source"`
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
	// Signals are the reviewer's signals, when it reports them (a
	// [SignalReviewer]).
	Signals []rules.Signal `json:"signals,omitempty"`
	// Alerted is set for an offcourse run with a signal or a counted
	// finding at or after onset−Tolerance: a gated advisor would have
	// looked. Alert is the first such step and AlertDelay its distance
	// after the onset (0 when before).
	Alerted    bool `json:"alerted,omitempty"`
	Alert      int  `json:"alert,omitempty"`
	AlertDelay int  `json:"alert_delay,omitempty"`
	// MarkedSteps counts the steps that carry a signal or a counted
	// finding (at its EndStep): the steps a gated advisor reviews.
	MarkedSteps int `json:"marked_steps,omitempty"`
	// EvalNote says what the evaluation tolerated, such as extra runs in
	// the file.
	EvalNote string `json:"eval_note,omitempty"`
	// Absent is set when the transcript is not on disk (a corpus folder
	// this machine does not have); such runs are left out.
	Absent bool `json:"absent,omitempty"`
	// Error says why the run could not be reviewed; such runs are left out
	// of the metrics.
	Error string `json:"error,omitempty"`
}

// Summary is the figures over a group of runs: all of them, or one source.
type Summary struct {
	// Offcourse, Clean and Uncertain count the runs by label; Failed
	// counts runs that could not be read or reviewed and Absent those not
	// on disk, which are left out.
	Offcourse int `json:"offcourse"`
	Clean     int `json:"clean"`
	Uncertain int `json:"uncertain"`
	Failed    int `json:"failed,omitempty"`
	Absent    int `json:"absent,omitempty"`

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
	// MeanDelay, MedianDelay and P90Delay are over detected runs, in
	// steps.
	MeanDelay   float64 `json:"mean_delay"`
	MedianDelay float64 `json:"median_delay"`
	P90Delay    float64 `json:"p90_delay"`

	// CleanSteps and CleanFlags are the steps and findings of clean runs;
	// FalseFlagsPer50 is CleanFlags per 50 CleanSteps.
	CleanSteps      int     `json:"clean_steps"`
	CleanFlags      int     `json:"clean_flags"`
	FalseFlagsPer50 float64 `json:"false_flags_per_50_clean_steps"`
	// EarlyFlags counts findings in offcourse runs before onset−Tolerance.
	EarlyFlags int `json:"early_flags"`

	// The signal figures, set when the reviewer reports signals
	// (Report.Signals): AlertedWithin counts offcourse runs with a signal
	// or a finding within Tolerance steps of the onset, and
	// AlertRecallWithin is their share of offcourse runs; CleanMarkedSteps
	// counts the steps of clean runs that carry a signal or a finding, and
	// CleanMarkedShare is their share of CleanSteps: what a gated advisor
	// would pay for on runs that needed nothing.
	AlertedWithin     int     `json:"alerted_within"`
	AlertRecallWithin float64 `json:"alert_recall_within"`
	CleanMarkedSteps  int     `json:"clean_marked_steps"`
	CleanMarkedShare  float64 `json:"clean_marked_share"`

	delays []int
}

// Report is the outcome of an evaluation.
type Report struct {
	// Tolerance and MinSeverity are the options the report was made with.
	Tolerance   int            `json:"tolerance"`
	MinSeverity rules.Severity `json:"min_severity,omitempty"`
	// Runs are the labelled runs in the labels files' order.
	Runs []RunResult `json:"runs"`

	// Summary is over every run the options kept.
	Summary
	// BySource is the same figures for each source on its own.
	BySource map[string]*Summary `json:"by_source"`

	// ByDetector counts each detector's findings by the label of the run.
	ByDetector map[string]DetectorCounts `json:"by_detector"`

	// Signals is set when the reviewer reports signals; BySignal then
	// counts each kind's signals by the label of the run.
	Signals  bool                    `json:"signals"`
	BySignal map[string]SignalCounts `json:"by_signal,omitempty"`
}

// SignalCounts is one kind of signal's signals by run label.
type SignalCounts struct {
	// Runs counts the offcourse runs where the kind fired within
	// Tolerance steps of the onset; Early counts its signals in offcourse
	// runs before onset−Tolerance; Clean its signals in clean runs (at
	// most one a step); Uncertain those in uncertain runs.
	Runs      int `json:"runs"`
	Early     int `json:"early"`
	Clean     int `json:"clean"`
	Uncertain int `json:"uncertain"`
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
	// Detections counts the offcourse runs whose detection (first
	// matching finding) came from this detector; MedianDelay is the
	// median of their delays.
	Detections  int     `json:"detections"`
	MedianDelay float64 `json:"median_delay"`
}

// Run evaluates a reviewer on the runs the labels files list, in order.
func Run(ctx context.Context, labelsPaths []string, r Reviewer, opt Options) (*Report, error) {
	var labels []Label
	for _, p := range labelsPaths {
		ls, err := ReadLabels(p)
		if err != nil {
			return nil, err
		}
		labels = append(labels, ls...)
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
	rep := &Report{Tolerance: opt.Tolerance, MinSeverity: opt.MinSeverity, ByDetector: map[string]DetectorCounts{}, BySource: map[string]*Summary{}}
	if _, ok := r.(SignalReviewer); ok {
		rep.Signals, rep.BySignal = true, map[string]SignalCounts{}
	}
	for _, l := range labels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := review(ctx, l, r, opt)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Error = err.Error()
		}
		if !opt.keeps(res) {
			continue
		}
		rep.Runs = append(rep.Runs, res)
	}
	rep.score()
	return rep, nil
}

// source names a run's source: its set and format.
func source(set, format string) string {
	if set == "" {
		return format
	}
	return set + "/" + format
}

// keeps reports whether the options keep a run.
func (o Options) keeps(r RunResult) bool {
	matches := func(names []string) bool {
		format := r.Source[strings.LastIndexByte(r.Source, '/')+1:]
		for _, n := range names {
			if n == r.Source || n == r.Set || n == format {
				return true
			}
		}
		return false
	}
	if len(o.Only) > 0 && !matches(o.Only) {
		return false
	}
	return !matches(o.LeaveOut)
}

// review runs the reviewer over one labelled transcript and judges its
// findings against the label.
func review(ctx context.Context, l Label, r Reviewer, opt Options) (RunResult, error) {
	res := RunResult{Label: l, Source: source(l.Set, "unknown")}
	err := regular(l.Path)
	if errors.Is(err, fs.ErrNotExist) {
		res.Absent = true
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", l.File, err)
	}
	f, err := os.Open(l.Path)
	if err != nil {
		return res, fmt.Errorf("%s: %w", l.File, err)
	}
	defer f.Close()
	tr, err := transcript.NewReader(f, l.Path)
	if err != nil {
		return res, err
	}
	if watched, ok := tr.AdvisorOf(); ok {
		return res, fmt.Errorf("%s: an advisor transcript, not an agent session (label the session it watches%s)", l.File, strings.TrimSuffix(" "+watched, " "))
	}
	res.Source = source(l.Set, string(tr.Format()))
	steps, done := firstRun(tr, &res)
	var (
		found []rules.Finding
		sigs  []rules.Signal
	)
	if sr, ok := r.(SignalReviewer); ok {
		found, sigs, err = sr.ReviewSignals(ctx, steps)
	} else {
		found, err = r.Review(ctx, steps)
	}
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
	res.Signals = sigs
	res.mark(opt.Tolerance)
	if res.Steps == 0 && res.Error == "" {
		return res, fmt.Errorf("%s: no steps read", l.File)
	}
	return res, nil
}

// mark works out, from the findings and signals, the steps that carry
// either and, for an offcourse run, the first of them at or after
// onset−tolerance.
func (res *RunResult) mark(tolerance int) {
	marked := map[int]bool{}
	for _, fd := range res.Findings {
		marked[fd.EndStep] = true
	}
	for _, s := range res.Signals {
		marked[s.Step] = true
	}
	res.MarkedSteps = len(marked)
	if res.Class != Offcourse {
		return
	}
	for n := range marked {
		if n >= res.Onset-tolerance && (!res.Alerted || n < res.Alert) {
			res.Alerted, res.Alert = true, n
		}
	}
	if res.Alerted {
		res.AlertDelay = max(0, res.Alert-res.Onset)
	}
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

// score computes the metrics from the runs, over all of them and per
// source.
func (rep *Report) score() {
	detDelays := map[string][]int{}
	for _, r := range rep.Runs {
		rep.Summary.add(r, rep.Tolerance)
		src := rep.BySource[r.Source]
		if src == nil {
			src = &Summary{}
			rep.BySource[r.Source] = src
		}
		src.add(r, rep.Tolerance)
		if r.Error != "" || r.Absent {
			continue
		}
		first := ""
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
				if r.Detected && fd.EndStep == r.Detection && first == "" {
					first = fd.Detector
				}
			}
			rep.ByDetector[fd.Detector] = c
		}
		if rep.Signals {
			rep.countSignals(r)
		}
		if first != "" {
			c := rep.ByDetector[first]
			c.Detections++
			detDelays[first] = append(detDelays[first], r.Delay)
			c.MedianDelay = quantile(detDelays[first], 0.5)
			rep.ByDetector[first] = c
		}
	}
	rep.Summary.finish()
	for _, s := range rep.BySource {
		s.finish()
	}
}

// countSignals adds a run's signals to BySignal.
func (rep *Report) countSignals(r RunResult) {
	within := map[rules.SignalKind]bool{}
	for _, s := range r.Signals {
		c := rep.BySignal[string(s.Kind)]
		switch {
		case r.Class == Clean:
			c.Clean++
		case r.Class == Uncertain:
			c.Uncertain++
		case s.Step < r.Onset-rep.Tolerance:
			c.Early++
		case s.Step <= r.Onset+rep.Tolerance && !within[s.Kind]:
			within[s.Kind] = true
			c.Runs++
		}
		rep.BySignal[string(s.Kind)] = c
	}
}

// add counts one run; finish computes the fractions.
func (s *Summary) add(r RunResult, tolerance int) {
	switch {
	case r.Absent:
		s.Absent++
		return
	case r.Error != "":
		s.Failed++
		return
	}
	switch r.Class {
	case Offcourse:
		s.Offcourse++
		s.EarlyFlags += r.EarlyFlags
		if r.Detected {
			s.Detected++
			s.delays = append(s.delays, r.Delay)
			if r.Delay <= tolerance {
				s.DetectedWithin++
			}
		}
		if r.Alerted && r.AlertDelay <= tolerance {
			s.AlertedWithin++
		}
	case Clean:
		s.Clean++
		s.CleanSteps += r.Steps
		s.CleanFlags += len(r.Findings)
		s.CleanMarkedSteps += r.MarkedSteps
		if len(r.Findings) > 0 {
			s.Flagged++
		}
	case Uncertain:
		s.Uncertain++
	}
}

func (s *Summary) finish() {
	s.Precision = ratio(s.Detected, s.Detected+s.Flagged)
	s.Recall = ratio(s.Detected, s.Offcourse)
	s.RecallWithin = ratio(s.DetectedWithin, s.Offcourse)
	s.FalseFlagsPer50 = 50 * ratio(s.CleanFlags, s.CleanSteps)
	s.AlertRecallWithin = ratio(s.AlertedWithin, s.Offcourse)
	s.CleanMarkedShare = ratio(s.CleanMarkedSteps, s.CleanSteps)
	if len(s.delays) > 0 {
		sum := 0
		for _, d := range s.delays {
			sum += d
		}
		s.MeanDelay = float64(sum) / float64(len(s.delays))
		s.MedianDelay = quantile(s.delays, 0.5)
		s.P90Delay = quantile(s.delays, 0.9)
	}
}

// quantile is the q-quantile of xs by linear interpolation between the
// closest ranks (the median of an even count is the mean of the middle
// two). It sorts xs.
func quantile(xs []int, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Ints(xs)
	pos := q * float64(len(xs)-1)
	lo := int(pos)
	if lo+1 >= len(xs) {
		return float64(xs[lo])
	}
	frac := pos - float64(lo)
	return float64(xs[lo]) + frac*float64(xs[lo+1]-xs[lo])
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
