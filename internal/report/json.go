package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

// JSONFile is the object `vigil review --json` prints for each input
// file, on a line of its own (docs/review.md documents it).
//
// Steps and findings are at the top level whatever the number of runs:
// Steps counts the steps of every run, and each finding names its run by
// index, its steps counting within that run. For the common file of one
// run, Steps is that run's steps and every finding has run 0.
type JSONFile struct {
	// File is the path as given or found.
	File string `json:"file"`
	// Format is the transcript format; "" when the file could not be read.
	Format string `json:"format"`
	// Steps counts the steps of all runs.
	Steps int `json:"steps"`
	// Findings are every run's findings, run by run, each ordered by
	// start step. Never null.
	Findings []JSONFinding `json:"findings"`
	// Signals are every run's signals (reasons for a model advisor to
	// look, not findings), run by run, each in step order. Never null.
	Signals []JSONSignal `json:"signals"`
	// Runs describes the file's runs. Never null.
	Runs []JSONRun `json:"runs"`
	// Notes are what the reader skipped or tolerated. Never null.
	Notes []JSONNote `json:"notes"`
	// Error is why the file could not be reviewed in full; absent when it
	// was. With an error, the other fields hold what was reviewed.
	Error string `json:"error,omitempty"`
}

// JSONFinding is one finding.
type JSONFinding struct {
	// Run is the index of the run in Runs, from 0.
	Run       int    `json:"run"`
	Detector  string `json:"detector"`
	Severity  string `json:"severity"`
	StartStep int    `json:"start_step"`
	EndStep   int    `json:"end_step"`
	Message   string `json:"message"`
	Evidence  string `json:"evidence,omitempty"`
	// About is what the finding is about (review.Context); absent when
	// the review kept nothing of it.
	About *JSONAbout `json:"about,omitempty"`
}

// JSONAbout is what a finding is about: the instruction the agent was
// working to, the last call that failed within the finding's steps with
// the last lines of its output, and the change made at the step where it
// was reported, as unified diff lines. Each field is absent when empty.
type JSONAbout struct {
	Instruction     string `json:"instruction,omitempty"`
	InstructionStep int    `json:"instruction_step,omitempty"`
	FailedStep      int    `json:"failed_step,omitempty"`
	Command         string `json:"command,omitempty"`
	ExitCode        int    `json:"exit_code,omitempty"`
	Output          string `json:"output,omitempty"`
	Diff            string `json:"diff,omitempty"`
}

// JSONSignal is one signal.
type JSONSignal struct {
	// Run is the index of the run in Runs, from 0.
	Run int `json:"run"`
	// Step is the step at which the signal fires, counted within its run.
	Step int `json:"step"`
	// Kind says what was seen (see rules.SignalKinds); Detail names it.
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// JSONRun describes one run.
type JSONRun struct {
	// Index is the run's position in its file, from 0.
	Index int `json:"index"`
	// ID, Task, Model and CWD are what the file records of the run.
	ID      string     `json:"id,omitempty"`
	Task    string     `json:"task,omitempty"`
	Model   string     `json:"model,omitempty"`
	CWD     string     `json:"cwd,omitempty"`
	Started *time.Time `json:"started,omitempty"`
	// Steps counts the run's steps; Findings its findings; Signals its
	// signals, including any past the review's limit that Signals of the
	// file leaves out.
	Steps    int `json:"steps"`
	Findings int `json:"findings"`
	Signals  int `json:"signals"`
}

// JSONNote is something the reader skipped or tolerated.
type JSONNote struct {
	What      string `json:"what"`
	Count     int    `json:"count"`
	FirstLine int    `json:"first_line,omitempty"`
}

// ToJSON converts a file's outcome to its JSON object.
func ToJSON(f *File) JSONFile {
	out := JSONFile{File: f.Path, Findings: []JSONFinding{}, Signals: []JSONSignal{}, Runs: []JSONRun{}, Notes: []JSONNote{}}
	if err := f.Problem(); err != nil {
		out.Error = err.Error()
	}
	r := f.Result
	if r == nil {
		return out
	}
	out.Format, out.Steps = string(r.Format), r.Steps()
	for i, run := range r.Runs {
		jr := JSONRun{Index: i, ID: run.Info.ID, Task: run.Info.Task, Model: run.Info.Model, CWD: run.Info.CWD, Steps: run.Steps, Findings: len(run.Findings), Signals: run.SignalCount}
		if !run.Info.Started.IsZero() {
			t := run.Info.Started
			jr.Started = &t
		}
		out.Runs = append(out.Runs, jr)
		for j, fd := range run.Findings {
			jf := JSONFinding{Run: i, Detector: fd.Detector, Severity: string(fd.Severity),
				StartStep: fd.StartStep, EndStep: fd.EndStep, Message: fd.Message, Evidence: fd.Evidence}
			if j < len(run.Contexts) {
				c := run.Contexts[j]
				if about := (JSONAbout{c.Instruction, c.InstructionStep, c.FailedStep, c.Command, c.ExitCode, c.Output, c.Diff}); about != (JSONAbout{}) {
					jf.About = &about
				}
			}
			out.Findings = append(out.Findings, jf)
		}
		for _, sg := range run.Signals {
			out.Signals = append(out.Signals, JSONSignal{Run: i, Step: sg.Step, Kind: string(sg.Kind), Detail: sg.Detail})
		}
	}
	for _, n := range r.Notes {
		out.Notes = append(out.Notes, JSONNote{What: n.What, Count: n.Count, FirstLine: n.FirstLine})
	}
	return out
}

// WriteJSON writes a file's JSON object on one line.
func WriteJSON(w io.Writer, f *File) error {
	data, err := json.Marshal(ToJSON(f))
	if err != nil {
		return fmt.Errorf("encode review of %s: %w", f.Path, err)
	}
	_, err = w.Write(append(jsonSafe(data), '\n'))
	return err
}

// jsonSafe writes out, as \u escapes, the characters encoding/json leaves
// as they are that [Escape] would not: DEL, the C1 controls and the
// bidirectional controls. They can only be inside strings, where the
// escape means the same, so the JSON is unchanged for any parser and
// safe to print to a terminal too.
func jsonSafe(data []byte) []byte {
	i := unsafeIndex(string(data))
	if i < 0 {
		return data
	}
	out := make([]byte, 0, len(data)+16)
	out = append(out, data[:i]...)
	for i < len(data) {
		r, size := utf8.DecodeRune(data[i:])
		if r == 0x7f || (size > 1 && unsafeRune(r)) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out
}
