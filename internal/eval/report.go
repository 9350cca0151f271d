package eval

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteText prints the report as a table of runs followed by the
// metrics.
func (rep *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tlabel\tonset\tsteps\tdetected\tdelay\tfindings")
	for _, r := range rep.Runs {
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
	fmt.Fprintf(w, "\nruns: %d offcourse, %d clean, %d uncertain (left out)", rep.Offcourse, rep.Clean, rep.Uncertain)
	if rep.Failed > 0 {
		fmt.Fprintf(w, ", %d unreadable (left out)", rep.Failed)
	}
	if rep.MinSeverity != "" {
		fmt.Fprintf(w, "; findings below %s ignored", rep.MinSeverity)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "precision %.2f (%d of %d flagged runs)   recall %.2f (%d/%d)   recall within %d steps %.2f (%d/%d)\n",
		rep.Precision, rep.Detected, rep.Detected+rep.Flagged, rep.Recall, rep.Detected, rep.Offcourse,
		rep.Tolerance, rep.RecallWithin, rep.DetectedWithin, rep.Offcourse)
	fmt.Fprintf(w, "detection delay: mean %.1f, median %.1f steps after onset\n", rep.MeanDelay, rep.MedianDelay)
	fmt.Fprintf(w, "false flags: %d in %d clean steps = %.2f per 100 clean steps; %d early flags in offcourse runs\n",
		rep.CleanFlags, rep.CleanSteps, rep.FalseFlagsPer100, rep.EarlyFlags)
	if len(rep.ByDetector) > 0 {
		names := make([]string, 0, len(rep.ByDetector))
		for n := range rep.ByDetector {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "detector\tmatching\tearly\tclean\tuncertain")
		for _, n := range names {
			c := rep.ByDetector[n]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", n, c.Matching, c.Early, c.Clean, c.Uncertain)
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
