package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/internal/locate"
	"github.com/vigil-dev/vigil/internal/report"
	"github.com/vigil-dev/vigil/internal/review"
	"github.com/vigil-dev/vigil/rules"
)

// reviewCmd is `vigil review`: the zero-token detectors over recorded
// sessions (docs/review.md).
type reviewCmd struct {
	Paths   []string `arg:"" optional:"" name:"path" help:"Transcript files, or folders to search for them; none: this folder's sessions of every agent vigil reads (vigil, Claude Code, Codex, pi, omp), newest first."`
	Sample  bool     `help:"Review the sample session bundled with vigil."`
	JSON    bool     `name:"json" help:"Print one JSON object per file, one per line, instead of the text report."`
	HTML    string   `name:"html" placeholder:"FILE" help:"Also write a self-contained HTML page with each run's timeline to FILE."`
	Signals bool     `name:"signals" help:"Also show the rules' signals (reasons for an advisor to look, not findings) in the text and HTML reports; --json always lists them."`
	FailOn  string   `name:"fail-on" placeholder:"SEVERITY" help:"Exit with status 1 when a finding at or above SEVERITY (nit, concern or blocker) is found."`
	Rules   string   `name:"rules" placeholder:"FILE" help:"Detector thresholds (YAML) instead of the defaults."`
	Color   string   `default:"auto" enum:"auto,always,never" help:"Colour the text report: auto (when stdout is a terminal and NO_COLOR is unset), always or never."`
}

// progressMin is the input size from which a terminal gets a progress
// bar.
const progressMin = 32 << 20

func (c *reviewCmd) Run(e *env) error {
	err := c.run(e)
	// The error may quote a path or a file's content; it goes to a
	// terminal.
	var ee *exitError
	if errors.As(err, &ee) {
		ee.err = report.EscapeError(ee.err)
	}
	return err
}

func (c *reviewCmd) run(e *env) error {
	var failOn rules.Severity
	if c.FailOn != "" {
		s, err := rules.ParseSeverity(c.FailOn)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--fail-on: %w", err)}
		}
		failOn = s
	}
	settings, err := loadRules(c.Rules)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	// On a terminal, a status line once the work has taken a second.
	var status *report.Status
	if isTerminal(e.stderr) {
		status = report.NewStatus(e.stderr)
		t := time.AfterFunc(time.Second, status.Show)
		defer t.Stop()
	}
	var inputs []review.Input
	project := len(c.Paths) == 0 && !c.Sample
	if project {
		if inputs, err = projectInputs(e, status); err != nil {
			return err
		}
	} else {
		inputs = review.Inputs(c.Paths)
	}
	style := report.Style{Color: c.Color == "always" || c.Color == "auto" && isTerminal(e.stdout) && !e.hasEnv("NO_COLOR"), Signals: c.Signals}
	// Signals cost a little; look for them only where they are shown.
	opt := review.Options{Settings: settings, Signals: c.JSON || c.Signals}
	var bar *report.Progress
	if total := inputSize(inputs); isTerminal(e.stderr) && total >= progressMin {
		bar = report.NewProgress(e.stderr, total)
		opt.Progress = bar.Read
	}

	var (
		rows    []report.Row
		kept    []*report.File
		skipped report.Skipped
		failed  int
		worst   rules.Severity
		out     = &firstError{w: e.stdout}
	)
	// skip notes a file or folder found in a folder that is left out:
	// one that is not a transcript at all is no error (a folder may hold
	// anything), one that could not be read is.
	clearLines := func() {
		if bar != nil {
			bar.Clear()
		}
		if status != nil {
			status.Clear()
		}
	}
	skip := func(path string, err error) {
		clearLines()
		why := strings.TrimPrefix(err.Error(), "read "+path+": ")
		if review.NotTranscript(err) {
			skipped.NotTranscripts++
		} else {
			skipped.Unreadable++
			if !strings.HasPrefix(why, "list ") {
				why = "could not be read: " + why
			}
		}
		fmt.Fprintf(e.stderr, "vigil: skipped %s: %s\n", report.Escape(path), report.Escape(why))
	}
	emit := func(f *report.File) {
		clearLines()
		if c.JSON {
			out.check(report.WriteJSON(out, f))
		} else {
			if len(rows) > 0 {
				fmt.Fprintln(out)
			}
			out.check(report.WriteText(out, f, style))
		}
		rows = append(rows, report.RowOf(f))
		if c.HTML != "" {
			kept = append(kept, f)
		}
		if f.Failed() {
			failed++
		}
		if w := report.Worst(f); w.Rank() > worst.Rank() {
			worst = w
		}
	}
	if c.Sample {
		res, err := review.Read(e.ctx, bytes.NewReader(sampleSession), sampleName, opt)
		emit(&report.File{Path: sampleName, Result: res, Err: err})
	}
	for i, in := range inputs {
		if status != nil && bar == nil {
			status.Set(fmt.Sprintf("reviewing %d of %d: %s", i+1, len(inputs), filepath.Base(in.Path)))
		}
		if e.ctx.Err() != nil {
			// Cut short between two files: the report names the first
			// file left unreviewed, as it does when the signal comes
			// while a file is read.
			emit(&report.File{Path: in.Path, Err: fmt.Errorf("review %s: %w", in.Path, context.Cause(e.ctx))})
			return &exitError{code: exitUsage, err: fmt.Errorf("review: %w", context.Cause(e.ctx))}
		}
		if in.Err != nil {
			if in.Walked {
				skip(in.Path, in.Err)
			} else {
				emit(&report.File{Path: in.Path, Err: in.Err})
			}
			continue
		}
		if bar != nil {
			bar.StartFile(in.Path)
		}
		res, err := review.File(e.ctx, in.Path, opt)
		if bar != nil {
			bar.EndFile(fileSize(in.Path))
		}
		if err != nil && in.Walked {
			skip(in.Path, err)
			continue
		}
		emit(&report.File{Path: in.Path, Result: res, Err: err})
	}
	clearLines()
	if !c.JSON && len(rows) > 1 {
		fmt.Fprintln(out)
		out.check(report.WriteSummary(out, rows, skipped, style))
	}
	if out.err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("write report: %w", out.err)}
	}
	if c.HTML != "" {
		if err := writeHTMLFile(c.HTML, kept, report.PageOptions{Signals: c.Signals}); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		fmt.Fprintf(e.stderr, "vigil: wrote %s\n", report.Escape(c.HTML))
	}
	switch {
	case len(rows) == 0 && skipped.Unreadable > 0:
		return &exitError{code: exitUsage, err: fmt.Errorf("review: no transcripts found; %d skipped that could not be read", skipped.Unreadable)}
	case len(rows) == 0:
		return &exitError{code: exitUsage, err: errors.New("review: no transcripts found")}
	case failed > 0 || skipped.Unreadable > 0:
		var parts []string
		if failed > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d files could not be reviewed in full", failed, len(rows)))
		}
		if skipped.Unreadable > 0 {
			parts = append(parts, fmt.Sprintf("%d skipped that could not be read", skipped.Unreadable))
		}
		return &exitError{code: exitUsage, err: errors.New("review: " + strings.Join(parts, "; "))}
	case failOn != "" && worst.Rank() >= failOn.Rank():
		return &exitError{code: exitFindings, err: fmt.Errorf("review: found %s findings (--fail-on %s)", worst, failOn)}
	}
	return nil
}

// projectInputs finds the sessions of the working folder (package
// locate) and says on stderr what it found, or, when none, where it
// looked and what to pass instead.
func projectInputs(e *env, status *report.Status) ([]review.Input, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("review: find the working folder: %w", err)}
	}
	home, _ := e.lookupEnv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if status != nil {
		status.Set("looking for this project's sessions")
	}
	found := locate.Sessions(locate.Env{Home: home, CWD: cwd, Getenv: func(k string) string { v, _ := e.lookupEnv(k); return v }})
	if status != nil {
		status.Clear()
	}
	for _, err := range found.Errs {
		fmt.Fprintf(e.stderr, "vigil: %s\n", report.Escape(err.Error()))
	}
	if len(found.Sessions) == 0 {
		fmt.Fprintf(e.stderr, "vigil: no sessions of this project (%s) found; looked in\n", report.Escape(cwd))
		for _, line := range strings.Split(strings.TrimSuffix(found.Where(home), "\n"), "\n") {
			fmt.Fprintln(e.stderr, report.Escape(line))
		}
		return nil, &exitError{code: exitUsage, err: errors.New("review: name transcript files or folders (vigil review PATH...), or try vigil review --sample")}
	}
	fmt.Fprintf(e.stderr, "vigil: %s\n", found.Summary())
	inputs := make([]review.Input, len(found.Sessions))
	for i, s := range found.Sessions {
		inputs[i] = review.Input{Path: s.Path, Walked: true}
	}
	return inputs, nil
}

// writeHTMLFile writes the HTML report to path.
func writeHTMLFile(path string, files []*report.File, opt report.PageOptions) error {
	var buf bytes.Buffer
	if err := report.WritePage(&buf, files, opt); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

func inputSize(ins []review.Input) int64 {
	var n int64
	for _, in := range ins {
		n += fileSize(in.Path)
	}
	return n
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// hasEnv reports whether the variable is set to something.
func (e *env) hasEnv(name string) bool {
	v, ok := e.lookupEnv(name)
	return ok && v != ""
}

// firstError is a writer that remembers its first error and then writes
// nothing more.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(p)
	f.err = err
	return n, err
}

func (f *firstError) check(err error) {
	if f.err == nil {
		f.err = err
	}
}
