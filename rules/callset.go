package rules

import (
	"slices"

	"github.com/vigil-dev/vigil/transcript"
)

// CallSet returns a signature of the calls a step makes, as the detectors
// tell calls apart: the same kind of action on the same canonical command
// (spacing, quoting and wrappers as the shell reader normalises them), and
// for edits the same text; in any order. Two steps with the same
// signature make the same set of calls. It is 0 for a step that makes no
// calls.
func CallSet(st *transcript.Step) uint64 {
	acts := Actions(st)
	if len(acts) == 0 {
		return 0
	}
	sigs := make([]sig, 0, len(acts))
	for i := range acts {
		a := &acts[i]
		s := actionSig(a.Kind, a.canonical)
		for _, e := range a.Edits {
			s = mix(s, textSig(e.Path))
			s = mix(s, textSig(e.Old))
			s = mix(s, textSig(e.New))
		}
		sigs = append(sigs, s)
	}
	slices.Sort(sigs)
	out := sig(fnvOffset)
	for _, s := range sigs {
		out = mix(out, s)
	}
	if out == 0 {
		out = 1 // 0 means no calls
	}
	return uint64(out)
}
