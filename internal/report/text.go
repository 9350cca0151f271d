package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/vigil-dev/vigil/internal/review"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// WriteText writes one file's section of the text report: a heading with
// its format, runs, steps and findings; each finding with its steps,
// severity, detector and message, and below it, at the column where the
// message starts (its hanging indent), its evidence and what it is about
// ([review.Context]: the task or instruction, the failed call with the
// last lines of its output, the change the step made); the notes of what
// the reader skipped; and the error that cut the review short, if one
// did. Text is wrapped at spaces to end by column [Width], each
// continuation at the hanging indent (a word longer than a line runs
// over), and quoted output and diff lines are broken where they pass it.
// With st.Signals, each run's signals follow its findings, one a line
// with their step, kind and detail. Every text that comes from the file
// (its path, a run's task, a finding's message, evidence and context,
// notes, errors) is passed through [Escape], with or without colour.
func WriteText(w io.Writer, f *File, st Style) error {
	tw := &errWriter{w: w}
	if f.Result == nil {
		tw.printf("%s: %s\n", st.bold(Escape(f.Path)), st.severity(rules.Blocker, "error: ")+errText(f.Err))
		return tw.err
	}
	r := f.Result
	tw.printf("%s: %s\n", st.bold(Escape(f.Path)), heading(r, st.Signals))
	multi := len(r.Runs) > 1
	for i := range r.Runs {
		run := &r.Runs[i]
		indent := "  "
		if multi {
			tw.printf("  %s\n", st.bold(runTitle(run))+" "+st.dim(fmt.Sprintf("(%s, %s)", plural(run.Steps, "step"), plural(len(run.Findings), "finding"))))
			indent = "    "
		}
		writeFindings(tw, run, indent, st)
		if st.Signals {
			writeSignals(tw, run, indent, st)
		}
	}
	if len(r.Runs) == 0 {
		tw.printf("  %s\n", st.dim("no runs"))
	}
	for _, n := range r.Notes {
		tw.printf("  %s\n", st.dim("note: "+noteText(n)))
	}
	if r.Err != nil {
		tw.printf("  %s\n", st.severity(rules.Blocker, "error: ")+errText(r.Err)+" (review stopped here)")
	}
	return tw.err
}

// heading is a file's one-line description.
func heading(r *review.Result, signals bool) string {
	parts := []string{Escape(string(r.Format))}
	if len(r.Runs) != 1 {
		parts = append(parts, plural(len(r.Runs), "run"))
	}
	parts = append(parts, plural(r.Steps(), "step"), plural(r.Findings(), "finding"))
	if signals {
		parts = append(parts, plural(r.Signals(), "signal"))
	}
	return strings.Join(parts, ", ")
}

// runTitle names a run: its number from 1 and what its file records of
// it.
func runTitle(run *review.Run) string {
	t := fmt.Sprintf("run %d", run.Info.Index+1)
	for _, s := range []string{run.Info.Task, run.Info.ID} {
		if s != "" {
			return t + " " + Escape(s)
		}
	}
	return t
}

func writeFindings(tw *errWriter, run *review.Run, indent string, st Style) {
	fs := run.Findings
	if len(fs) == 0 {
		tw.printf("%s%s\n", indent, st.dim("no findings"))
		return
	}
	stepsW, sevW, detW := 0, 0, 0
	for _, f := range fs {
		stepsW = max(stepsW, len(stepRange(f)))
		sevW = max(sevW, len(f.Severity))
		detW = max(detW, len(f.Detector))
	}
	// The message, and every line after it, starts at the hanging indent.
	hang := len(indent) + stepsW + sevW + detW + 6
	cont := strings.Repeat(" ", hang)
	for i, f := range fs {
		sr := stepRange(f)
		msg := wrapWords(Escape(f.Message), room(hang))
		tw.printf("%s%s%s  %s%s  %s%s  %s\n", indent,
			sr, pad(sr, stepsW),
			st.severity(f.Severity, string(f.Severity)), pad(string(f.Severity), sevW),
			st.bold(f.Detector), pad(f.Detector, detW),
			msg[0])
		for _, l := range msg[1:] {
			tw.printf("%s%s\n", cont, l)
		}
		if f.Evidence != "" {
			writeWrapped(tw, cont, "evidence: "+Escape(oneLine(f.Evidence)), st.dim)
		}
		if i < len(run.Contexts) {
			writeContext(tw, cont, &run.Contexts[i], st)
		}
	}
}

// writeContext writes what a finding is about under it, at the hanging
// indent cont: the instruction, the failed call with the last lines of its
// output, and the change the step made, the quoted lines indented two
// more.
func writeContext(tw *errWriter, cont string, c *review.Context, st Style) {
	if c.Instruction != "" {
		writeWrapped(tw, cont, instructionLabel(c)+": "+Escape(c.Instruction), st.dim)
	}
	if c.FailedStep > 0 {
		writeWrapped(tw, cont, failedCall(c, Escape(c.Command)), st.dim)
		writeVerbatim(tw, cont+"  ", c.Output, func(string) func(string) string { return st.dim })
	}
	if c.Diff != "" {
		tw.printf("%s%s\n", cont, st.dim("change:"))
		writeVerbatim(tw, cont+"  ", c.Diff, st.diffLine)
	}
}

// instructionLabel names a context's instruction: the run's task, or an
// instruction given later.
func instructionLabel(c *review.Context) string {
	if c.InstructionStep > 1 {
		return fmt.Sprintf("instruction (before step %d)", c.InstructionStep)
	}
	return "task"
}

// failedCall says which call failed: "failed at step 4: COMMAND (exit
// 1)", command as the caller escaped it.
func failedCall(c *review.Context, command string) string {
	s := fmt.Sprintf("failed at step %d: %s", c.FailedStep, command)
	if c.ExitCode > 0 {
		s += fmt.Sprintf(" (exit %d)", c.ExitCode)
	}
	return s
}

// writeWrapped writes text, word-wrapped, each line at indent and styled
// by style.
func writeWrapped(tw *errWriter, indent, text string, style func(string) string) {
	for _, l := range wrapWords(text, room(len(indent))) {
		tw.printf("%s%s\n", indent, style(l))
	}
}

// writeVerbatim writes text line by line at indent, tabs expanded,
// escaped and broken where a line is longer than the room left; styleOf
// gives each line's style from the line itself.
func writeVerbatim(tw *errWriter, indent, text string, styleOf func(line string) func(string) string) {
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		style := styleOf(line)
		line = Escape(strings.ReplaceAll(strings.TrimRight(line, " \t\r"), "\t", "    "))
		if line == "" {
			tw.printf("\n")
			continue
		}
		for _, piece := range chop(line, room(len(indent))) {
			tw.printf("%s%s\n", indent, style(piece))
		}
	}
}

// writeSignals writes a run's signals under a "signals:" line.
func writeSignals(tw *errWriter, run *review.Run, indent string, st Style) {
	if run.SignalCount == 0 {
		tw.printf("%s%s\n", indent, st.dim("no signals"))
		return
	}
	tw.printf("%s%s\n", indent, st.dim("signals:"))
	stepW, kindW := 0, 0
	for _, s := range run.Signals {
		stepW = max(stepW, len(fmt.Sprint(s.Step)))
		kindW = max(kindW, len(s.Kind))
	}
	for _, s := range run.Signals {
		n := fmt.Sprint(s.Step)
		tw.printf("%s  step %s%s  %s%s  %s\n", indent, n, pad(n, stepW), st.bold(string(s.Kind)), pad(string(s.Kind), kindW), Escape(oneLine(s.Detail)))
	}
	if more := run.SignalCount - len(run.Signals); more > 0 {
		tw.printf("%s  %s\n", indent, st.dim(fmt.Sprintf("… and %d more %s, not kept", more, strings.TrimPrefix(plural(more, "signal"), fmt.Sprint(more)+" "))))
	}
}

// stepRange writes a finding's steps: "step 4" or "steps 2-5".
func stepRange(f rules.Finding) string {
	if f.StartStep == f.EndStep {
		return fmt.Sprintf("step %d", f.StartStep)
	}
	return fmt.Sprintf("steps %d-%d", f.StartStep, f.EndStep)
}

func noteText(n transcript.Note) string {
	s := Escape(n.What)
	if n.Count > 1 {
		s = fmt.Sprintf("%s (%d times", s, n.Count)
		if n.FirstLine > 0 {
			s += fmt.Sprintf(", first at line %d", n.FirstLine)
		}
		return s + ")"
	}
	if n.FirstLine > 0 {
		s += fmt.Sprintf(" (line %d)", n.FirstLine)
	}
	return s
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return Escape(err.Error())
}

func pad(s string, w int) string {
	if n := w - len(s); n > 0 {
		return strings.Repeat(" ", n)
	}
	return ""
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// oneLine folds a text onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// errWriter remembers the first write error, so a report can be written
// without checking each line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
