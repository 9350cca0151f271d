package rules

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var unsupportedClaimInfo = Info{
	Name:     "unsupported-claim",
	Severity: Concern,
	Doc: "A claim of success (\"tests pass\", \"the issue is fixed\", \"the fix works\", \"all " +
		"green\") that the results do not support: the project was changed but nothing has been run " +
		"in the whole run, or the last run before the claim failed. A line that marks the failed run's " +
		"program with a check mark, in any language (\"pytest -q  # ✅ FONCTIONNE\"), claims it too. Hedged sentences (\"if the tests pass\", \"let me " +
		"verify the fix works\") are not claims. Work declared done (a final reply or hand-in " +
		"that says the tasks are complete, a final reply that reports in the first person what was changed " +
		"(\"I've switched the storage layer to Redis\"), or boxes ticked in a file) after 10 or more changes to code or settings (not prose) " +
		"with nothing built, tested or run since the last run is one too, and so is a final reply " +
		"that says the work is done or deployed (\"The fix has been deployed\"), or reports code changes in the " +
		"first person (\"I updated the contact details\"), when the project " +
		"changed and nothing was built, tested or run in the whole run. Reported once per claim and last run; a blocker " +
		"when the claim is in the final reply, which ends the run on it. A claim with nothing run " +
		"is reported again after the user answers one.",
}

// unsupportedClaim compares claims with the run results before them.
type unsupportedClaim struct {
	// reportedRun is the step of the last run whose failure was already
	// reported, or -1 for "nothing was run".
	reportedRun int
	reported    bool
	// stretch counts the file changes since the last run (in the whole
	// run when nothing ran); doneReported is set once a report of done
	// work in that stretch was reported.
	stretch      int
	doneReported bool
	// verified is set once anything was built, tested or run (verifies).
	verified bool
}

func (d *unsupportedClaim) reset() { *d = unsupportedClaim{} }

func (d *unsupportedClaim) observe(v *view, emit func(candidate)) {
	defer d.count(v)
	c := v.checks
	if v.userSpoke && d.reportedRun == -1 {
		// The user answered a claim made with nothing run: a new claim
		// with nothing run yet is news again.
		d.reported = false
	}
	claim := v.claim
	if claim == "" && v.final && !d.verified && c.runs == 0 && c.projectEdits > 0 {
		// A final reply that reports the work done or deployed, with
		// nothing built, tested or run in the whole run.
		claim = doneClaimIn(v.text, v.lower, 0, min(len(v.lower), claimSpan))
		if claim == "" && c.codeEdits > 0 {
			// "I updated the contact details": a report of work that a
			// run could have checked (not a README edit).
			claim = workReportIn(v.text, v.lower)
		}
	}
	if claim == "" && c.runs > 0 && c.last.Failed {
		claim = markedClaim(v.text, c.lastKey)
	}
	if claim == "" {
		d.unverified(v, emit)
		return
	}
	var msg, evidence string
	start := v.n
	switch {
	case c.runs == 0:
		if d.reported && d.reportedRun == -1 || c.projectEdits == 0 || c.codeEdits == 0 {
			// Nothing was changed either, or only prose that no run
			// checks: the claim is about something else (a question
			// answered, history, a document).
			return
		}
		d.reportedRun = -1
		msg = fmt.Sprintf("%q, but nothing has been run yet; run the tests or the reproduction and report what they show.", clip(claim, 60))
	case c.last.Failed:
		if d.reported && d.reportedRun == c.lastStep {
			return
		}
		d.reportedRun = c.lastStep
		start = c.lastStep
		msg = fmt.Sprintf("%q, but the last run (`%s`, step %d) failed; fix that or report the failure.",
			clip(claim, 60), clip(c.last.Command, 60), c.lastStep)
		evidence = clip(c.last.Output, 120)
	default:
		return
	}
	d.reported = true
	sev := unsupportedClaimInfo.Severity
	if v.final {
		sev = Blocker
	}
	emit(candidate{subject: textSig("claim"), Finding: Finding{
		Detector:  unsupportedClaimInfo.Name,
		Severity:  sev,
		StartStep: start,
		EndStep:   v.n,
		Message:   msg,
		Evidence:  evidence,
	}})
}

// count keeps the stretch of file changes with nothing run up to date
// with the step's actions, like the check tracker.
func (d *unsupportedClaim) count(v *view) {
	for i := range v.acts {
		a := &v.acts[i]
		if verifies(a) {
			d.stretch, d.doneReported, d.verified = 0, false, true
		}
		for _, ef := range a.effects {
			if ef.changed && !isProse(ef.file.key) {
				d.stretch++
			}
		}
	}
}

// unverified reports work declared done (a final reply or hand-in that says
// the tasks are complete, or boxes ticked in a file) after a long stretch of
// file changes with nothing built, tested or run: a claim of finished work
// with no evidence at all.
func (d *unsupportedClaim) unverified(v *view, emit func(candidate)) {
	if d.doneReported || d.stretch+stepChanges(v) < unverifiedDone {
		return
	}
	claim := ""
	if v.final || v.submits() {
		claim = doneClaimIn(v.text, v.lower, 0, min(len(v.lower), claimSpan))
		if claim == "" && len(v.lower) > claimSpan {
			claim = doneClaimIn(v.text, v.lower, max(claimSpan, len(v.lower)-2*claimSpan), len(v.lower))
		}
	}
	if claim == "" && v.final {
		claim = workReportIn(v.text, v.lower)
	}
	if claim == "" {
		claim = ticks(v)
	}
	if claim == "" {
		return
	}
	d.doneReported = true
	since := "in the whole run"
	if c := v.checks; c.runs > 0 {
		since = fmt.Sprintf("since step %d (`%s`)", c.lastStep, clip(c.last.Command, 60))
	}
	sev := unsupportedClaimInfo.Severity
	if v.final {
		sev = Blocker
	}
	emit(candidate{subject: textSig("done"), Finding: Finding{
		Detector:  unsupportedClaimInfo.Name,
		Severity:  sev,
		StartStep: v.n,
		EndStep:   v.n,
		Message: fmt.Sprintf("%q after %d file changes with nothing built, tested or run %s; build and run it, then report what it shows.",
			clip(claim, 60), d.stretch+stepChanges(v), since),
	}})
}

// markedClaim returns the line of text that marks the last run's program
// as a success with a check mark ("pytest -q  # ✅", "✅ npm test: OK"),
// in whatever language the rest of the line is in; "" when no line does.
// key is the last run's program; a bare interpreter or shell names too
// much to tell which run a line is about.
func markedClaim(text, key string) string {
	if key == "" || !strings.ContainsAny(text, "✅✔") {
		return ""
	}
	switch key {
	case "python", "python3", "node", "bash", "sh", "zsh", "npx", "uv", "env", "sudo", "cd":
		return ""
	}
	for line := range strings.Lines(text) {
		if strings.ContainsAny(line, "✅✔") && !strings.ContainsAny(line, "❌✗✘⚠") && strings.Contains(line, key) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// workReport matches a final reply's first-person report of finished
// work: "I've switched the storage layer to Redis", "We have updated all
// the routes", "I updated the contact details". Only judged after a long stretch of unverified changes.
var workReport = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\W*(?:i(?:'|’)ve|i have|we(?:'|’)ve|we have|i|we) (?:now |also |just )?(?:switched|updated|added|implemented|migrated|converted|refactored|rewritten|replaced|moved|wired|built|created|completed|finished|fixed|made|reworked|split)\b`)
})

// workReportIn returns the sentence of a final reply's start that reports
// finished work in the first person, or "".
func workReportIn(text string, lower []byte) string {
	part := lower[:min(len(lower), claimSpan)]
	loc := workReport().FindIndex(part)
	if loc == nil {
		return ""
	}
	// The report starts a line with what was done: no hedge can come
	// before it, and one after it ("when REDIS_URL isn't set") qualifies
	// the work, not the claim.
	a, b := sentenceAt(part, loc[1]-1, 200)
	return strings.TrimSpace(text[a:b])
}

// runKey returns the program of a run's canonical command, past the
// commands that only set up (cd, source, export): "pytest" for
// `cd app && . .venv/bin/activate && pytest -q | tail`.
func runKey(canonical string) string {
	rest := canonical
	for rest != "" {
		i := strings.IndexAny(rest, ";&|")
		seg := rest
		if i >= 0 {
			seg, rest = rest[:i], strings.TrimLeft(rest[i:], ";&|")
		} else {
			rest = ""
		}
		switch k := programKey(strings.TrimSpace(seg)); k {
		case "", "cd", "export", "source", ".", "set", "unset", "alias":
		default:
			return k
		}
	}
	return ""
}

// verifies reports whether an action builds, checks, tests or runs the
// work: a run or test, or a build, type check or linter.
func verifies(a *act) bool {
	if a.Run && !(a.hasCode && a.code.writes) || a.Test {
		return true
	}
	if a.Kind != KindShell {
		return false
	}
	key := programKey(a.canonical)
	if key == "git commit" {
		return false
	}
	if isCheckProgram(key) {
		return true
	}
	for _, p := range buildPrograms {
		if key == p {
			return true
		}
	}
	return false
}

// buildPrograms build or start a project, beside the checkPrograms.
var buildPrograms = []string{"npx", "mvn", "gradle", "dotnet", "docker build", "docker compose", "cargo run", "cargo test", "go run", "go test",
	"npm start", "npm test", "yarn build", "yarn test", "pnpm build", "pnpm test", "bun", "deno", "node", "cmake", "ninja"}

// stepChanges counts the changes the step's actions make to files a run
// could check (not prose).
func stepChanges(v *view) int {
	n := 0
	for i := range v.acts {
		for _, ef := range v.acts[i].effects {
			if ef.changed && !isProse(ef.file.key) {
				n++
			}
		}
	}
	return n
}

// ticks returns what ticks boxes ("[x]") in an existing file at the step:
// a command that edits in place, or an edit that adds a checked box; "" when
// nothing does.
func ticks(v *view) string {
	for i := range v.acts {
		a := &v.acts[i]
		if a.Failed || a.Kind != KindShell && a.Kind != KindEdit {
			continue
		}
		if inPlace(a.Command) && (strings.Contains(a.Command, "[x]") || strings.Contains(a.Command, "[X]")) {
			return fmt.Sprintf("ticks boxes with `%s`", clip(a.Command, 60))
		}
		for _, e := range a.Edits {
			if e.Op != EditReplace && e.Op != EditLines || e.Old == "" {
				continue
			}
			added := addedText(e)
			if j := max(strings.Index(added, "[x]"), strings.Index(added, "[X]")); j >= 0 {
				return fmt.Sprintf("ticks %s in %s", clip(strings.TrimSpace(added[j:]), 60), tailClip(fileKey(e.Path), 80))
			}
		}
	}
	return ""
}

// unverifiedDone is how many file changes with nothing built, tested or run
// in between make a report that the work is done an unsupported claim.
const unverifiedDone = 10
