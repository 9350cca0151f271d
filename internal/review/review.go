package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// Options tunes a review. The zero value reviews with the default
// detector settings and limits.
type Options struct {
	// Settings tunes the detectors; zero fields take their defaults.
	Settings rules.Settings
	// DetailSteps is how many steps of a run keep their full summary in
	// the timeline. A run with at most this many steps keeps them all; a
	// longer one keeps the steps around its findings, up to this many.
	// Default 1000.
	DetailSteps int
	// StripCells is how many cells the compact strip of a run may hold;
	// when a run has more steps, each cell covers several. Default 600.
	StripCells int
	// Signals keeps each run's signals (Run.Signals); without it the
	// engine does not look for them (rules.Settings.NoSignals), which
	// makes a review a little cheaper.
	Signals bool
	// MaxSignals is how many signals a run keeps; the ones after are
	// only counted (Run.SignalCount). Default 10,000.
	MaxSignals int
	// Progress, when set, is called as the file is read with how many
	// bytes of it (as stored, before decompression) have been read so
	// far. It is called from the reviewing goroutine.
	Progress func(read int64)
}

func (o Options) withDefaults() Options {
	if o.DetailSteps <= 0 {
		o.DetailSteps = 1000
	}
	if o.StripCells <= 0 {
		o.StripCells = 600
	}
	if o.MaxSignals <= 0 {
		o.MaxSignals = 10000
	}
	if o.StripCells < 2 {
		o.StripCells = 2
	}
	return o
}

// Result is the review of one file.
type Result struct {
	// File is the file's name as it was given.
	File string
	// Format is the transcript format the reader detected.
	Format transcript.Format
	// Size is the file's size in bytes as stored; 0 when not known.
	Size int64
	// Runs are the file's runs, in the order they appear.
	Runs []Run
	// Notes are what the reader skipped or tolerated.
	Notes []transcript.Note
	// Err is the error that ended reading early, if any; the runs hold
	// what was reviewed up to there.
	Err error
}

// Steps returns the number of steps over all runs.
func (r *Result) Steps() int {
	n := 0
	for i := range r.Runs {
		n += r.Runs[i].Steps
	}
	return n
}

// Signals returns the number of signals over all runs, kept or not.
func (r *Result) Signals() int {
	n := 0
	for i := range r.Runs {
		n += r.Runs[i].SignalCount
	}
	return n
}

// Findings returns the number of findings over all runs.
func (r *Result) Findings() int {
	n := 0
	for i := range r.Runs {
		n += len(r.Runs[i].Findings)
	}
	return n
}

// Run is the review of one run of a file.
type Run struct {
	// Info describes the run as its file records it.
	Info transcript.RunInfo
	// Steps is how many steps the run has.
	Steps int
	// Findings are the detectors' findings, ordered by the step where
	// each starts (then by where it ends).
	Findings []rules.Finding
	// Contexts say what each finding is about: Contexts[i] is that of
	// Findings[i].
	Contexts []Context
	// Signals are the rules' signals (package rules: reasons for a model
	// advisor to look, not findings), in step order: the first
	// Options.MaxSignals of them. SignalCount counts them all. Both stay
	// empty unless Options.Signals is set.
	Signals     []rules.Signal
	SignalCount int
	// Timeline is a bounded summary of the run's steps.
	Timeline Timeline
}

// ErrAdvisorTranscript is the cause of the error for an advisor's
// transcript (__advisor.jsonl): a vigil session file, but of the advisor's
// reviews, not of an agent's work, so the detectors have nothing to say
// of it.
var ErrAdvisorTranscript = errors.New("an advisor transcript, not an agent session")

// File reviews the transcript at path. It returns an error, and no
// result, when the file is not a regular file (which it checks before
// opening it: a named pipe would block the open), cannot be opened, or is
// not a transcript format vigil knows; a read error after the review
// started is in Result.Err.
func File(ctx context.Context, path string, opt Options) (*Result, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := Read(ctx, f, path, opt)
	if res != nil {
		res.Size = size
	}
	return res, err
}

// Read reviews the transcript r holds; name stands for it in the result
// and in errors. See [File]. Reading stops when ctx is done, at the next
// read of r.
func Read(ctx context.Context, r io.Reader, name string, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	r = &ctxReader{ctx: ctx, r: r}
	if opt.Progress != nil {
		r = &countingReader{r: r, report: opt.Progress}
	}
	tr, err := transcript.NewReader(r, name)
	if err != nil {
		return nil, stopped(ctx, name, err)
	}
	if watched, ok := tr.AdvisorOf(); ok {
		if watched != "" {
			return nil, fmt.Errorf("read %s: %w (review the session it watches, %s)", name, ErrAdvisorTranscript, watched)
		}
		return nil, fmt.Errorf("read %s: %w", name, ErrAdvisorTranscript)
	}
	res := &Result{File: name, Format: tr.Format()}
	var cur *runState
	finish := func() {
		if cur != nil {
			res.Runs = append(res.Runs, cur.finish())
			cur = nil
		}
	}
	for it, err := range tr.Items() {
		if err != nil {
			res.Err = stopped(ctx, name, err)
			break
		}
		if ctx.Err() != nil {
			res.Err = stopped(ctx, name, ctx.Err())
			break
		}
		if it.Run != nil {
			finish()
			cur = newRunState(*it.Run, opt)
			continue
		}
		if cur == nil {
			// Readers announce a run before its entries; be safe anyway.
			cur = newRunState(transcript.RunInfo{Format: tr.Format()}, opt)
		}
		cur.add(it)
	}
	if res.Err == nil && ctx.Err() != nil {
		// A reader may end its items quietly on a failed read (one it
		// notes as a cut line, say): a review the signal cut short must
		// still say so, never pass for a clean one.
		res.Err = stopped(ctx, name, ctx.Err())
	}
	finish()
	res.Format = tr.Format() // the runs may have named it more precisely (omp)
	res.Notes = tr.Notes()
	return res, nil
}

// stopped returns err, or, when ctx is done, the reason it is: a review
// cut short by a signal says so, not what the cut did to the reader.
func stopped(ctx context.Context, name string, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("review %s: %w", name, context.Cause(ctx))
}

// runState is one run under review.
type runState struct {
	run        Run
	maxSignals int
	stepper    transcript.Stepper
	engine     *rules.Engine
	tl         timelineBuilder
	sum        summariser
	// in is the last instruction seen and fail the last failing call,
	// for the findings' contexts.
	in   instruction
	fail failure
}

func newRunState(info transcript.RunInfo, opt Options) *runState {
	info.ID, info.Task, info.CWD, info.Model = strings.Clone(info.ID), strings.Clone(info.Task), strings.Clone(info.CWD), strings.Clone(info.Model)
	var in instruction
	if t := foldText(info.Task, maxInstruction); t != "" {
		in = instruction{text: t, step: 1}
	}
	return &runState{
		in:         in,
		run:        Run{Info: info},
		maxSignals: opt.MaxSignals,
		engine:     rules.New(settingsOf(opt)),
		tl:         newTimelineBuilder(opt.DetailSteps, opt.StripCells, windowOf(opt.Settings)),
	}
}

// settingsOf is the engine's settings for a review with opt.
func settingsOf(opt Options) rules.Settings {
	s := opt.Settings
	s.NoSignals = s.NoSignals || !opt.Signals
	return s
}

// windowOf is how far back a finding may start: the engine's window.
func windowOf(s rules.Settings) int {
	if s.Window > 0 {
		return s.Window
	}
	return rules.DefaultSettings().Window
}

func (s *runState) add(it transcript.Item) {
	for _, st := range s.stepper.Add(it.Entry) {
		s.observe(&st)
	}
}

func (s *runState) observe(st *transcript.Step) {
	s.run.Steps = st.N
	s.in.see(st.Context, st.N)
	found := s.engine.Observe(*st)
	s.tl.add(s.sum.summarise(st, s.engine.LastActions()))
	s.fail.see(s.engine.LastActions(), st.N)
	for _, f := range found {
		f.Message, f.Evidence = strings.Clone(f.Message), strings.Clone(f.Evidence)
		s.run.Findings = append(s.run.Findings, f)
		s.run.Contexts = append(s.run.Contexts, contextOf(st, f.StartStep, s.in, s.fail))
		s.tl.pin(f.StartStep, f.EndStep)
	}
	for _, sg := range s.engine.LastSignals() {
		s.run.SignalCount++
		if len(s.run.Signals) < s.maxSignals {
			sg.Detail = strings.Clone(sg.Detail)
			s.run.Signals = append(s.run.Signals, sg)
		}
	}
}

func (s *runState) finish() Run {
	if st, ok := s.stepper.Flush(); ok {
		s.observe(&st)
	}
	s.run.Timeline = s.tl.timeline()
	// Sort the findings and their contexts together.
	order := make([]int, len(s.run.Findings))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := s.run.Findings[order[i]], s.run.Findings[order[j]]
		return a.StartStep < b.StartStep || a.StartStep == b.StartStep && a.EndStep < b.EndStep
	})
	findings := make([]rules.Finding, len(order))
	contexts := make([]Context, len(order))
	for i, k := range order {
		findings[i], contexts[i] = s.run.Findings[k], s.run.Contexts[k]
	}
	if len(order) > 0 {
		s.run.Findings, s.run.Contexts = findings, contexts
	}
	return s.run
}

// countingReader reports how many bytes have been read through it, about
// every progressEvery bytes.
type countingReader struct {
	r       io.Reader
	n, next int64
	report  func(int64)
}

const progressEvery = 1 << 20

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n >= c.next || err != nil {
		c.report(c.n)
		c.next = c.n + progressEvery
	}
	return n, err
}

// ctxReader fails its reads once ctx is done, so that a review of a huge
// file (or a slow one) stops within one read of a signal.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
