package eval

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/vigil-dev/vigil/rules"
)

// WriteText prints the report as a table of runs followed by the
// metrics.
func (rep *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tlabel\tonset\tsteps\tdetected\tdelay\tfindings")
	for _, r := range rep.Runs {
		if r.Absent {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\tnot on this machine\n", shorten(r.File, 56), r.Class)
			continue
		}
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\terror: %s\n", shorten(r.File, 56), r.Class, r.Error)
			continue
		}
		onset, det, delay := "", "", ""
		if r.Class == Offcourse {
			onset = fmt.Sprint(r.Onset)
			det, delay = "no", "-"
			if r.Detected {
				det, delay = fmt.Sprintf("at %d", r.Detection), fmt.Sprint(r.Delay)
			}
		}
		var fs []string
		for _, f := range r.Findings {
			fs = append(fs, fmt.Sprintf("%s@%d", f.Detector, f.EndStep))
		}
		if len(fs) > 6 {
			fs = append(fs[:6], fmt.Sprintf("+%d more", len(fs)-6))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", shorten(r.File, 56), r.Class, onset, r.Steps, det, delay, strings.Join(fs, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	rep.Summary.writeText(w, rep.Tolerance, rep.MinSeverity, rep.Signals)
	if len(rep.BySource) > 0 {
		names := make([]string, 0, len(rep.BySource))
		for n := range rep.BySource {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "source\toffcourse\tclean\trecall\twithin %d\tmedian delay\tp90 delay\tfalse flags / 50 clean steps\tflagged clean runs", rep.Tolerance)
		if rep.Signals {
			fmt.Fprintf(tw, "\tsignal or finding within %d\tclean steps marked", rep.Tolerance)
		}
		fmt.Fprintln(tw)
		for _, n := range names {
			s := rep.BySource[n]
			if s.Offcourse+s.Clean == 0 {
				fmt.Fprintf(tw, "%s	-	-	-	-	-	-	-	- (%d uncertain, %d absent, %d unreadable)\n", n, s.Uncertain, s.Absent, s.Failed)
				continue
			}
			fmt.Fprintf(tw, "%s	%d	%d	%s	%s	%s	%s	%.2f	%d/%d", n, s.Offcourse, s.Clean,
				frac(s.Detected, s.Offcourse), frac(s.DetectedWithin, s.Offcourse),
				delay(s.MedianDelay, s.Detected), delay(s.P90Delay, s.Detected),
				s.FalseFlagsPer50, s.Flagged, s.Clean)
			if rep.Signals {
				fmt.Fprintf(tw, "\t%s\t%s", frac(s.AlertedWithin, s.Offcourse), frac(s.CleanMarkedSteps, s.CleanSteps))
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(rep.ByDetector) > 0 {
		names := make([]string, 0, len(rep.ByDetector))
		for n := range rep.ByDetector {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "detector\tmatching\tearly\tclean\tuncertain\tdetections\tmedian delay")
		for _, n := range names {
			c := rep.ByDetector[n]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\n", n, c.Matching, c.Early, c.Clean, c.Uncertain, c.Detections, delay(c.MedianDelay, c.Detections))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(rep.BySignal) > 0 {
		names := make([]string, 0, len(rep.BySignal))
		for n := range rep.BySignal {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "signal\toffcourse runs within %d\tearly\tclean steps\tuncertain\n", rep.Tolerance)
		for _, n := range names {
			c := rep.BySignal[n]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", n, c.Runs, c.Early, c.Clean, c.Uncertain)
		}
		return tw.Flush()
	}
	return nil
}

// shorten keeps the end of a long path, which names the file.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n+1:]
}

// writeText prints the summary's figures.
func (s *Summary) writeText(w io.Writer, tolerance int, minSeverity rules.Severity, signals bool) {
	fmt.Fprintf(w, "runs: %d offcourse, %d clean, %d uncertain (left out)", s.Offcourse, s.Clean, s.Uncertain)
	if s.Failed > 0 {
		fmt.Fprintf(w, ", %d unreadable (left out)", s.Failed)
	}
	if s.Absent > 0 {
		fmt.Fprintf(w, ", %d not on this machine (left out)", s.Absent)
	}
	if minSeverity != "" {
		fmt.Fprintf(w, "; findings below %s ignored", minSeverity)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "precision %.2f (%d of %d flagged runs)   recall %.2f (%d/%d)   recall within %d steps %.2f (%d/%d)\n",
		s.Precision, s.Detected, s.Detected+s.Flagged, s.Recall, s.Detected, s.Offcourse,
		tolerance, s.RecallWithin, s.DetectedWithin, s.Offcourse)
	fmt.Fprintf(w, "detection delay: mean %.1f, median %.1f, p90 %.1f steps after onset\n", s.MeanDelay, s.MedianDelay, s.P90Delay)
	fmt.Fprintf(w, "false flags: %d in %d clean steps = %.2f per 50 clean steps; %d early flags in offcourse runs\n",
		s.CleanFlags, s.CleanSteps, s.FalseFlagsPer50, s.EarlyFlags)
	if signals {
		fmt.Fprintf(w, "signals: a signal or finding within %d steps of the onset in %.2f of offcourse runs (%d/%d); %d of %d clean steps marked (%.1f%%)\n",
			tolerance, s.AlertRecallWithin, s.AlertedWithin, s.Offcourse, s.CleanMarkedSteps, s.CleanSteps, 100*s.CleanMarkedShare)
	}
}

// frac prints a count over a total as a fraction with both counts.
func frac(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%d/%d)", float64(n)/float64(of), n, of)
}

// delay prints a delay figure, or "-" when nothing was detected.
func delay(d float64, detected int) string {
	if detected == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", d)
}
