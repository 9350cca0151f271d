package report

import (
	"github.com/vigil-dev/vigil/internal/review"
	"github.com/vigil-dev/vigil/rules"
)

// File is the outcome for one input file: its review, or the error that
// kept it from being reviewed.
type File struct {
	// Path is the file's path as given or found.
	Path string
	// Result is the review; nil when Err kept the file from being read.
	Result *review.Result
	// Err is why the file could not be reviewed at all. A read error in
	// the middle of a file is Result.Err instead.
	Err error
}

// Failed reports whether the file could not be reviewed in full.
func (f *File) Failed() bool {
	return f.Err != nil || f.Result != nil && f.Result.Err != nil
}

// Problem returns the error that kept the file from being reviewed in
// full; nil when there is none.
func (f *File) Problem() error {
	if f.Err != nil {
		return f.Err
	}
	if f.Result != nil {
		return f.Result.Err
	}
	return nil
}

// Counts are findings counted by severity.
type Counts struct {
	Blocker, Concern, Nit int
}

// Total returns the number of findings counted.
func (c Counts) Total() int { return c.Blocker + c.Concern + c.Nit }

// Add counts one finding.
func (c *Counts) Add(s rules.Severity) {
	switch s {
	case rules.Blocker:
		c.Blocker++
	case rules.Concern:
		c.Concern++
	default:
		c.Nit++
	}
}

// CountFindings counts the findings of a file by severity.
func CountFindings(f *File) Counts {
	var c Counts
	if f.Result == nil {
		return c
	}
	for _, r := range f.Result.Runs {
		for _, fd := range r.Findings {
			c.Add(fd.Severity)
		}
	}
	return c
}

// Worst returns the most severe finding's severity in the file, or ""
// when it has none.
func Worst(f *File) rules.Severity {
	var w rules.Severity
	if f.Result == nil {
		return w
	}
	for _, r := range f.Result.Runs {
		for _, fd := range r.Findings {
			if fd.Severity.Rank() > w.Rank() {
				w = fd.Severity
			}
		}
	}
	return w
}
