package transcript

import "github.com/vigil-dev/vigil/llm"

// piMachine drives the pi and omp reader for a follower. Both agents write
// one whole message per line (a reply once it is complete, a tool result
// once the tool ran), so nothing is held back for a later line.
type piMachine struct {
	r *piReader
}

// piProbeLines is how many head lines describe a pi or omp run (its
// title slot, the header, an early model_change or reply), as readPi's
// head pass reads.
const piProbeLines = 100

func newPiMachine(d *decodeState) *piMachine {
	return &piMachine{r: &piReader{d: d, run: RunInfo{Format: FormatPi}}}
}

func (m *piMachine) line(n int, raw []byte) error { return m.r.line(n, raw) }
func (m *piMachine) settle()                      {}
func (m *piMachine) holds(string) bool            { return false }

// probe reads what readPi's head pass reads of a line: whether the file
// is omp's, its title and its model.
func (m *piMachine) probe(raw []byte, run *RunInfo) {
	var l piLine
	if decodeJSON(&m.r.dec, raw, &l) != nil {
		return
	}
	if ompTypes[l.Type] || l.Type == "model_change" && l.Model != "" || l.Type == "session" && (l.TitleSource != "" || l.PromptKey != "") {
		run.Format = FormatOmp
	}
	switch {
	case l.Type == "session":
		if run.ID == "" {
			run.ID, run.CWD, run.Started = l.ID, l.CWD, l.time()
		}
		if l.Title != "" && run.Task == "" {
			run.Task = l.Title
		}
	case l.Type == "title" && run.Task == "":
		run.Task = l.Title
	case l.Type == "model_change" && run.Model == "":
		run.Model = piModel(&l).String()
	case l.Type == "message" && l.Message != nil && l.Message.Role == "assistant" && run.Model == "":
		run.Model = llm.Ref{Provider: l.Message.Provider, Model: l.Message.Model}.String()
	}
}
