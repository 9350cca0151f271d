package rules

import (
	"fmt"
	"strings"
)

var sameResultInfo = Info{
	Name:     "same-result",
	Severity: Concern,
	Doc: "A command run again and again that ends the same way each time, with nothing edited in " +
		"between that could change it: the same program and target (ignoring how input is fed: " +
		"`echo N |`, `< /dev/null`, a here-document; wrappers such as timeout or sudo; added flags) " +
		"whose last line of output matches, numbers and ids normalised, in a row (no other program " +
		"run in between) and each within 5 steps of the last. Rewording the command does not change what decides its result. Reported at the " +
		"SameResults-th identical ending (default 3). An exact command failing the same way is " +
		"repeated-failure's, a read-only one polling-finished's and a test run test-rerun's.",
}

// sameGap is how many steps apart two runs may be and still count as
// running it again.
const sameGap = 5

// sameResult counts runs of one program and target in a row that end the
// same way; a run of anything else starts over.
type sameResult struct {
	min int
	key sig
	run sameRun
}

type sameRun struct {
	end         sig
	canonical   sig
	count       int
	first, last int
	// variants is set when the command was phrased differently, passed
	// when one of the runs succeeded.
	variants, passed bool
	reported         bool
}

func (d *sameResult) reset() { d.key, d.run = 0, sameRun{} }

func (d *sameResult) observe(v *view, emit func(candidate)) {
	if v.userSpoke {
		d.reset()
	}
	for i := range v.acts {
		a := &v.acts[i]
		for _, ef := range a.effects {
			if ef.changed && !ef.file.created {
				// A project file changed: what the next run shows may differ.
				d.reset()
			}
		}
		if !a.Answered || a.Refused || a.Test || a.Kind != KindShell || a.install || a.polls {
			continue
		}
		key := coreKey(a.canonical)
		if key == "" {
			continue
		}
		k := commandSig(key)
		// The last line is where a run ends up: its prompt, its error, its
		// summary; what it printed on the way may differ with how it ran.
		end := mix(outputSig(lastLine(a.Output)), boolSig(a.Failed))
		canon := commandSig(a.canonical)
		r := d.run
		if d.key != k || r.end != end || r.last < v.n-sameGap {
			d.key, r = k, sameRun{end: end, canonical: canon, first: v.n}
		}
		if r.last == v.n && r.count > 0 {
			continue // twice in one step counts once
		}
		r.count++
		r.last = v.n
		r.variants = r.variants || canon != r.canonical
		r.passed = r.passed || !a.Failed
		if r.count >= d.min && !r.reported && (r.variants || r.passed) {
			r.reported = true
			how := "with nothing changed in between"
			if r.variants {
				how = "however the command was phrased"
			}
			emit(candidate{subject: k, Finding: Finding{
				Detector:  sameResultInfo.Name,
				Severity:  sameResultInfo.Severity,
				StartStep: r.first,
				EndStep:   v.n,
				Message: fmt.Sprintf("`%s` has ended the same way %d times, %s; running it again will not change that. Find what decides the result (a prompt waiting for input, a missing flag, the environment) and fix that instead.",
					clip(key, 60), r.count, how),
				Evidence: clip(lastLine(a.Output), 160),
			}})
		}
		d.run = r
	}
}

func boolSig(b bool) sig {
	if b {
		return 1
	}
	return 0
}

// feeders are programs whose output, piped into the next command, only
// answers its prompts.
var feeders = map[string]bool{"echo": true, "printf": true, "yes": true}

// coreKey is what a canonical command line runs, for comparing variants:
// its last command's program and first argument, with input feeders and
// the wrappers simpleCmd.program looks through left out ("echo N |
// timeout 60 npx create-next-app@latest app --yes" is
// "create-next-app@latest app"). A wrapper with nothing to run has none.
func coreKey(canonical string) string {
	last := canonical
	if strings.Contains(canonical, " | ") {
		rest := canonical
		for {
			seg, after, found := strings.Cut(rest, " | ")
			if !found {
				last = seg
				break
			}
			var buf [1]string
			if w := firstFields(seg, buf[:0]); len(w) == 0 || !feeders[baseName(w[0])] {
				// A pipeline that does more than feed its input: compare
				// it whole.
				return canonical
			}
			rest = after
		}
	}
	var buf [16]string
	c := simpleCmd{args: firstFields(last, buf[:0])}
	key, args := c.program()
	if w, ok := commandWrappers[key]; key == "" || ok && len(w.skip(args)) == 0 {
		return ""
	}
	for _, w := range args {
		if !strings.HasPrefix(w, "-") {
			return key + " " + w
		}
	}
	return key
}

// firstFields appends to dst the first cap(dst) words of s (so a caller's
// array holds them without allocating).
func firstFields(s string, dst []string) []string {
	for w := range strings.FieldsSeq(s) {
		if len(dst) == cap(dst) {
			break
		}
		dst = append(dst, w)
	}
	return dst
}
