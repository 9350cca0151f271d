package rules

import "fmt"

var emptyProbesInfo = Info{
	Name:     "empty-probes",
	Severity: Concern,
	Doc: "One program (a fetch, a search, a lookup) called again and again with other arguments, " +
		"every call returning nothing, one step after another: guessing instead of finding out. " +
		"Programs that print nothing when they succeed (mkdir, cp, git add, …), edits and " +
		"background runs do not count; a call of the program that returns something ends the " +
		"row. Reported at the 6th empty result in a row (the empty-probes signal marks the 3rd).",
}

// emptyProbeFindings is how many empty results in a row of one program make
// an empty-probes finding.
const emptyProbeFindings = 6

// emptyProbeRow counts the calls in a row of one program that return
// nothing.
type emptyProbeRow struct {
	program  string
	count    int
	first    int
	last     int
	reported bool
}

func (d *emptyProbeRow) reset() { *d = emptyProbeRow{} }

func (d *emptyProbeRow) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		if len(a.Edits) > 0 || a.Background || a.Kind == KindEdit || a.Kind == KindOther {
			continue
		}
		key := programKey(a.canonical)
		if !(a.Empty || a.Answered && isBlank(a.Output)) || key == "" || isSilentProgram(key) {
			if key == d.program {
				d.count = 0 // it found something: the row is over
			}
			continue
		}
		if key == d.program && v.n-d.last <= 1 {
			d.count++
		} else {
			d.program, d.count, d.first, d.reported = key, 1, v.n, false
		}
		d.last = v.n
		if d.count >= emptyProbeFindings && !d.reported {
			d.reported = true
			emit(candidate{subject: commandSig(key), Finding: Finding{
				Detector:  emptyProbesInfo.Name,
				Severity:  emptyProbesInfo.Severity,
				StartStep: d.first,
				EndStep:   v.n,
				Message: fmt.Sprintf("%d calls of %s in a row returned nothing, the last `%s`; stop guessing and find the answer another way (documentation, a search, the user).",
					d.count, key, clip(a.Command, 80)),
			}})
		}
	}
}

// isBlank reports whether s holds only white space.
func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}
