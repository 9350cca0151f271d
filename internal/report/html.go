package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/internal/review"
	"github.com/vigil-dev/vigil/rules"
)

//go:embed page.html.tmpl
var pageSource string

// pageTemplate returns the page's template, parsed at first use rather
// than when vigil starts (most commands never write a page).
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageSource))
})

// WriteHTML writes one self-contained page (inline CSS and script, no
// network) for the given files: a summary at the top, then per file and
// run a strip of steps coloured by failure with each finding marked at
// the step where it starts, the findings with their messages, and a
// table of steps with the tools they called and the findings' banners at
// their start steps. The page works without its script; the script only
// highlights a finding's steps when it is clicked.
func WriteHTML(w io.Writer, files []*File) error {
	return WritePage(w, files, PageOptions{})
}

// PageOptions says what an HTML page shows beyond the findings.
type PageOptions struct {
	// Signals lists each run's signals after its findings, marks the
	// strip's cells that have one (•, with the kinds in the cell's
	// tooltip) and the table's steps.
	Signals bool
}

// WritePage is [WriteHTML] with options.
func WritePage(w io.Writer, files []*File, opt PageOptions) error {
	p := buildPage(files)
	if opt.Signals {
		p.Signals = true
		for i, f := range files {
			if f.Result == nil {
				continue
			}
			for j := range f.Result.Runs {
				addSignals(&p.Files[i].Runs[j], &f.Result.Runs[j])
			}
		}
	}
	if err := pageTemplate().Execute(w, p); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

// The page's view of the review.
type (
	htmlPage struct {
		Title   string
		Signals bool
		Files   []htmlFile
		Runs    int
		Steps   int
		Counts  Counts
		Failed  int
	}
	htmlFile struct {
		Anchor string
		Path   string
		Format string
		Steps  int
		Counts Counts
		Worst  string
		Runs   []htmlRun
		Notes  []string
		Error  string
	}
	htmlRun struct {
		Anchor   string
		Multi    bool
		Title    string
		Meta     string
		Steps    int
		Width    int
		Complete bool
		Cells    []htmlCell
		Findings []htmlFinding
		Rows     []htmlRow
		// Signals are the run's signals, MoreSignals those not kept.
		Signals     []htmlSignal
		MoreSignals int
	}
	htmlSignal struct {
		Step   int
		Kind   string
		Detail string
		Target string
	}
	htmlCell struct {
		First, Last int
		Class       string
		Title       string
		Target      string
		Marks       []htmlFinding
		// In is the worst severity of the findings that cover the cell;
		// "" when none does.
		In string
		// Signalled is set when a step of the cell has a signal.
		Signalled bool
	}
	htmlFinding struct {
		Anchor     string
		Severity   string
		Detector   string
		Message    string
		Evidence   string
		Steps      string
		Start, End int
		Target     string
		// What the finding is about (review.Context): the instruction
		// and its label, the failed call and its output, the change.
		InstructionLabel, Instruction string
		FailedCall, Output            string
		Diff                          []htmlDiffLine
	}
	htmlDiffLine struct {
		// Class is add, del or ctx.
		Class string
		Text  string
	}
	htmlCall struct {
		// Tool is shown before Command unless Command starts with it.
		Tool     string
		Command  string
		Failed   bool
		ExitCode int
	}
	htmlRow struct {
		Anchor string
		N      int
		Text   string
		Calls  []htmlCall
		Failed bool
		// Gap counts the steps left out before this one.
		Gap int
		// Starts are the findings that start at this step; In is set when
		// the step is inside some finding.
		Starts []htmlFinding
		In     bool
		// Signals are the step's signals.
		Signals []htmlSignal
	}
)

func buildPage(files []*File) htmlPage {
	p := htmlPage{Title: "vigil review"}
	if len(files) == 1 {
		p.Title = "vigil review: " + files[0].Path
	}
	for i, f := range files {
		hf := htmlFile{Anchor: fmt.Sprintf("f%d", i+1), Path: f.Path, Counts: CountFindings(f), Worst: string(Worst(f))}
		if err := f.Problem(); err != nil {
			hf.Error = err.Error()
			p.Failed++
		}
		if r := f.Result; r != nil {
			hf.Format, hf.Steps = string(r.Format), r.Steps()
			for j := range r.Runs {
				hf.Runs = append(hf.Runs, buildRun(fmt.Sprintf("%s-r%d", hf.Anchor, j+1), &r.Runs[j], len(r.Runs) > 1))
			}
			for _, n := range r.Notes {
				hf.Notes = append(hf.Notes, noteText(n))
			}
			p.Runs += len(r.Runs)
		}
		p.Steps += hf.Steps
		p.Counts.Blocker += hf.Counts.Blocker
		p.Counts.Concern += hf.Counts.Concern
		p.Counts.Nit += hf.Counts.Nit
		p.Files = append(p.Files, hf)
	}
	return p
}

func buildRun(anchor string, run *review.Run, multi bool) htmlRun {
	hr := htmlRun{Anchor: anchor, Steps: run.Steps, Width: run.Timeline.Width, Complete: run.Timeline.Complete, Multi: multi}
	if multi {
		hr.Title = runTitle(run)
	}
	var meta []string
	for _, s := range []string{run.Info.Model, run.Info.CWD} {
		if s != "" {
			meta = append(meta, s)
		}
	}
	if !run.Info.Started.IsZero() {
		meta = append(meta, run.Info.Started.UTC().Format("2006-01-02 15:04 UTC"))
	}
	hr.Meta = strings.Join(meta, " · ")

	detail := map[int]*review.StepInfo{}
	for i := range run.Timeline.Detail {
		detail[run.Timeline.Detail[i].N] = &run.Timeline.Detail[i]
	}
	stepAnchor := func(n int) string {
		if _, ok := detail[n]; ok {
			return fmt.Sprintf("%s-s%d", anchor, n)
		}
		return ""
	}
	for i, fd := range run.Findings {
		hf := htmlFinding{
			Anchor: fmt.Sprintf("%s-f%d", anchor, i+1), Severity: string(fd.Severity), Detector: fd.Detector,
			Message: fd.Message, Evidence: fd.Evidence, Steps: stepRange(fd), Start: fd.StartStep, End: fd.EndStep,
			Target: stepAnchor(fd.StartStep),
		}
		if i < len(run.Contexts) {
			addContext(&hf, &run.Contexts[i])
		}
		hr.Findings = append(hr.Findings, hf)
	}
	for _, c := range run.Timeline.Cells {
		hc := htmlCell{First: c.First, Last: c.Last, Class: "ok", Target: stepAnchor(c.First)}
		switch {
		case c.Failed > 0 && c.Failed*4 < c.Last-c.First+1:
			// A cell of many steps of which few failed is paler.
			hc.Class = "fail some"
		case c.Failed > 0:
			hc.Class = "fail"
		case c.Calls == 0:
			hc.Class = "talk"
		}
		hc.Title = cellTitle(c, detail[c.First])
		var in rules.Severity
		for _, f := range hr.Findings {
			if f.Start >= c.First && f.Start <= c.Last {
				hc.Marks = append(hc.Marks, f)
			}
			if sev := rules.Severity(f.Severity); f.Start <= c.Last && f.End >= c.First && sev.Rank() > in.Rank() {
				in = sev
			}
		}
		hc.In = string(in)
		if len(hc.Marks) > 0 {
			hc.Title += "\n" + plural(len(hc.Marks), "finding") + " start here: " + hc.Marks[0].Detector
		}
		hr.Cells = append(hr.Cells, hc)
	}
	prev := 0
	for _, si := range run.Timeline.Detail {
		row := htmlRow{Anchor: stepAnchor(si.N), N: si.N, Text: si.Text, Failed: si.Failed(), Gap: si.N - prev - 1}
		for _, c := range si.Calls {
			hc := htmlCall{Tool: c.Tool, Command: c.Command, Failed: c.Failed, ExitCode: c.ExitCode}
			if strings.HasPrefix(c.Command, c.Tool+" ") {
				hc.Tool = ""
			}
			row.Calls = append(row.Calls, hc)
		}
		prev = si.N
		for _, f := range hr.Findings {
			if f.Start == si.N {
				row.Starts = append(row.Starts, f)
			}
			if si.N >= f.Start && si.N <= f.End {
				row.In = true
			}
		}
		hr.Rows = append(hr.Rows, row)
	}
	// A finding whose start step has no row still gets its banner, on the
	// first row after it.
	for _, f := range hr.Findings {
		if f.Target != "" {
			continue
		}
		for i := range hr.Rows {
			if hr.Rows[i].N > f.Start {
				hr.Rows[i].Starts = append(hr.Rows[i].Starts, f)
				break
			}
		}
	}
	return hr
}

// addContext adds what a finding is about to its view.
func addContext(hf *htmlFinding, c *review.Context) {
	hf.InstructionLabel, hf.Instruction = instructionLabel(c), c.Instruction
	if c.FailedStep > 0 {
		hf.FailedCall, hf.Output = failedCall(c, c.Command), c.Output
	}
	if c.Diff != "" {
		for _, l := range strings.Split(c.Diff, "\n") {
			class := "ctx"
			switch {
			case strings.HasPrefix(l, "+"):
				class = "add"
			case strings.HasPrefix(l, "-"):
				class = "del"
			}
			hf.Diff = append(hf.Diff, htmlDiffLine{Class: class, Text: l})
		}
	}
}

// addSignals adds a run's signals to its view: the list, the cells and
// the rows.
func addSignals(hr *htmlRun, run *review.Run) {
	hr.MoreSignals = run.SignalCount - len(run.Signals)
	rows := map[int]*htmlRow{}
	for i := range hr.Rows {
		rows[hr.Rows[i].N] = &hr.Rows[i]
	}
	for _, sg := range run.Signals {
		hs := htmlSignal{Step: sg.Step, Kind: string(sg.Kind), Detail: sg.Detail}
		if row := rows[sg.Step]; row != nil {
			hs.Target = row.Anchor
			row.Signals = append(row.Signals, hs)
		}
		hr.Signals = append(hr.Signals, hs)
		// Cells are in step order; find the one that holds the step.
		i := sort.Search(len(hr.Cells), func(i int) bool { return hr.Cells[i].Last >= sg.Step })
		if i < len(hr.Cells) && hr.Cells[i].First <= sg.Step {
			c := &hr.Cells[i]
			if !c.Signalled {
				c.Title += "\nsignals:"
			}
			c.Signalled = true
			c.Title += fmt.Sprintf(" %s (step %d)", sg.Kind, sg.Step)
		}
	}
}

// cellTitle is a cell's tooltip: the step and its calls, or for a cell of
// several steps, their counts.
func cellTitle(c review.Cell, si *review.StepInfo) string {
	if c.First != c.Last || si == nil {
		s := fmt.Sprintf("steps %d-%d: %s", c.First, c.Last, plural(c.Calls, "call"))
		if c.First == c.Last {
			s = fmt.Sprintf("step %d: %s", c.First, plural(c.Calls, "call"))
		}
		if c.Failed > 0 {
			s += fmt.Sprintf(", %d failed", c.Failed)
		}
		return s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "step %d", si.N)
	if len(si.Calls) == 0 && si.Text != "" {
		b.WriteString(": " + si.Text)
	}
	for _, call := range si.Calls {
		b.WriteString("\n" + call.Tool + ": " + call.Command)
		if call.Failed {
			b.WriteString("  [failed")
			if call.ExitCode > 0 {
				fmt.Fprintf(&b, ", exit %d", call.ExitCode)
			}
			b.WriteString("]")
		}
	}
	return b.String()
}
