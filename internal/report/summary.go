package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Row is one line of the summary table: what the table needs of a file,
// so that a caller reviewing many files need not keep their results.
type Row struct {
	Path   string
	Format string
	Runs   int
	Steps  int
	Counts Counts
	// Error is why the file could not be reviewed in full; "" when it was.
	Error string
}

// RowOf summarises a file for the table.
func RowOf(f *File) Row {
	row := Row{Path: f.Path, Counts: CountFindings(f)}
	if f.Result != nil {
		row.Format, row.Runs, row.Steps = string(f.Result.Format), len(f.Result.Runs), f.Result.Steps()
	}
	if err := f.Problem(); err != nil {
		row.Error = err.Error()
	}
	return row
}

// Skipped counts the files and folders a review left out, for the
// summary's total line.
type Skipped struct {
	// NotTranscripts are files in folders that are not agent transcripts
	// (another format, an advisor's transcript, a named pipe).
	NotTranscripts int
	// Unreadable are files and folders in folders that could not be read
	// or listed.
	Unreadable int
}

// WriteSummary writes the table of files with their runs, steps and
// findings by severity, and a total line that also counts what was
// skipped.
func WriteSummary(w io.Writer, rows []Row, skipped Skipped, st Style) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tformat\truns\tsteps\tfindings\tblocker\tconcern\tnit\t")
	var total Counts
	steps, runs, failed := 0, 0, 0
	for _, r := range rows {
		if r.Error != "" && r.Format == "" {
			fmt.Fprintf(tw, "%s\terror\t\t\t\t\t\t\t\n", Escape(r.Path))
			failed++
			continue
		}
		status := ""
		if r.Error != "" {
			status, failed = "read error", failed+1
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", Escape(r.Path), Escape(r.Format), r.Runs, r.Steps, r.Counts.Total(), r.Counts.Blocker, r.Counts.Concern, r.Counts.Nit, status)
		total.Blocker += r.Counts.Blocker
		total.Concern += r.Counts.Concern
		total.Nit += r.Counts.Nit
		steps += r.Steps
		runs += r.Runs
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	line := fmt.Sprintf("total: %s, %s, %s, %s (%d blocker, %d concern, %d nit)",
		plural(len(rows), "file"), plural(runs, "run"), plural(steps, "step"), plural(total.Total(), "finding"),
		total.Blocker, total.Concern, total.Nit)
	if failed > 0 {
		line += fmt.Sprintf("; %d could not be reviewed in full", failed)
	}
	if skipped.NotTranscripts > 0 {
		line += fmt.Sprintf("; %s skipped (not transcripts)", plural(skipped.NotTranscripts, "file"))
	}
	if skipped.Unreadable > 0 {
		line += fmt.Sprintf("; %d skipped that could not be read", skipped.Unreadable)
	}
	ew.printf("%s\n", st.bold(line))
	return ew.err
}
