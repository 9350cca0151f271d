package rules

import (
	"strings"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// detector is one detector's state. observe is called once per step with
// the step's view; it reports through emit. reset forgets everything.
type detector interface {
	observe(v *view, emit func(candidate))
	reset()
}

// candidate is a finding with the subject it is about (a command, a file),
// which the engine uses to keep two detectors from reporting the same
// episode twice. A zero subject is about no one thing.
type candidate struct {
	Finding
	subject sig
	// anySubject marks a finding about the run as a whole, which yields to
	// any other finding that already covers its steps.
	anySubject bool
}

// registry lists the detectors in the order the engine runs them.
var registry = []struct {
	info Info
	make func(Settings) detector
}{
	{repeatedFailureInfo, func(s Settings) detector { return &repeatedFailure{min: s.FailureRepeats} }},
	{sidestepInfo, func(s Settings) detector { return &sidestep{within: s.FollowUp} }},
	{workaroundInfo, func(s Settings) detector { return &workaround{within: s.FollowUp} }},
	{forbiddenEditInfo, func(s Settings) detector { return &forbiddenEdit{} }},
	{unsupportedClaimInfo, func(s Settings) detector { return &unsupportedClaim{} }},
	{fabricatedInfo, func(s Settings) detector { return &fabricated{} }},
	{scopeCreepInfo, func(s Settings) detector { return &scopeCreep{within: s.FollowUp} }},
	{editThrashInfo, func(s Settings) detector { return &editThrash{flips: s.EditFlips, rewrites: s.Rewrites} }},
	{revertInfo, func(s Settings) detector { return &revertCycle{} }},
	{editFailuresInfo, func(s Settings) detector { return &editFailures{min: s.EditFailures} }},
	{testRerunInfo, func(s Settings) detector { return &testRerun{min: s.TestReruns} }},
	{pollingInfo, func(s Settings) detector { return &polling{min: s.IdenticalReads} }},
	{sameResultInfo, func(s Settings) detector { return &sameResult{min: s.SameResults} }},
	{churnInfo, func(s Settings) detector { return &churn{} }},
	{formatErrorsInfo, func(s Settings) detector { return &formatErrors{min: s.FormatErrors} }},
	{loopInfo, func(s Settings) detector { return &loop{min: s.LoopSteps} }},
	{sameReplyInfo, func(s Settings) detector { return &sameReply{} }},
	{emptyProbesInfo, func(s Settings) detector { return &emptyProbeRow{} }},
	{stoppedShortInfo, func(s Settings) detector { return &stoppedShort{} }},
	{reclaimInfo, func(s Settings) detector { return &reclaim{} }},
}

// Engine runs the detectors over the steps of one run as they complete.
// It remembers a bounded window of recent steps, so its memory does not
// grow with the run. An Engine is not safe for concurrent use.
type Engine struct {
	s      Settings
	dets   []detector
	files  fileTracker
	checks checkTracker
	last   int // the number of the last step observed
	// reported are the findings of the last Window steps.
	reported []candidate
	// openFile is the file SWE-agent's editor has open, for its edit N:M.
	openFile string
	// runs remembers when each run result (command and output) was last
	// seen, to tell runs that show something new from repeats.
	runs map[sig]int
	v    view
	// lowered holds the step's text in lower case, reused from step to step.
	lowered []byte
	// actions are the actions of the step last observed, reused from step
	// to step; scratch is a buffer their derivation reuses.
	actions []Action
	scratch []byte
	// found are the findings of the step being observed; emit is report,
	// made once so that each step does not allocate it again.
	found []Finding
	emit  func(candidate)
	// sigs finds the signals of each step; signals are those of the step
	// last observed, reused from step to step.
	sigs    signaller
	signals []Signal
}

// New returns an engine with the given settings; zero fields take their
// defaults.
func New(s Settings) *Engine {
	s = s.withDefaults()
	e := &Engine{s: s, files: newFileTracker(), sigs: signaller{within: s.FollowUp, window: s.Window}}
	for _, r := range registry {
		if !s.disabled(r.info.Name) {
			e.dets = append(e.dets, r.make(s))
		}
	}
	return e
}

// Reset forgets the run: call it when a new run starts or the agent's
// context is compacted (what came before is no longer in front of it).
// Observe also resets by itself when a step's number is not greater than
// the previous step's (a new run has started) and when a compaction entry
// comes before a step.
func (e *Engine) Reset() {
	for _, d := range e.dets {
		d.reset()
	}
	e.files = newFileTracker()
	e.checks = checkTracker{}
	e.runs = nil
	e.last = 0
	e.reported = e.reported[:0]
	e.openFile = ""
	clear(e.actions)
	e.actions = e.actions[:0]
	e.sigs.reset()
	clear(e.signals)
	e.signals = e.signals[:0]
}

// LastActions returns the actions of the step Observe last took, as it
// derived them: what [Actions] returns for that step, without deriving
// them again. The slice is the engine's and the actions refer to the
// step's text: both are valid until the next call to Observe or Reset,
// so a caller that keeps anything of them must copy it.
func (e *Engine) LastActions() []Action {
	return e.actions
}

// Observe takes the next step of the run and returns the findings that
// become reportable at it, usually none; every finding's EndStep is st.N.
// The step's signals are then in [Engine.LastSignals].
// Each episode is reported once, at the step where it first qualifies;
// later steps of the same episode stay quiet. Steps must come in the order
// of the run; Observe keeps nothing of st after it returns.
func (e *Engine) Observe(st transcript.Step) []Finding {
	if st.N <= e.last || compacted(st.Context) {
		e.Reset()
	}
	e.last = st.N
	v := e.build(&st)
	e.found = nil
	if e.emit == nil {
		e.emit = e.report
	}
	for _, d := range e.dets {
		d.observe(v, e.emit)
	}
	clear(e.signals)
	e.signals = e.signals[:0]
	if !e.s.NoSignals {
		e.signals = e.sigs.observe(v, e.signals)
	}
	e.checks.update(v)
	e.prune(v.oldest())
	found := e.found
	e.found = nil
	return found
}

// report takes a detector's candidate for the step being observed.
func (e *Engine) report(c candidate) {
	if e.duplicate(c) {
		return
	}
	e.reported = append(e.reported, c)
	e.found = append(e.found, c.Finding)
}

// compacted reports whether the entries before a step include a
// compaction.
func compacted(ctx []session.Entry) bool {
	for _, c := range ctx {
		if _, ok := c.Body.(*session.Compaction); ok {
			return true
		}
	}
	return false
}

// duplicate reports whether another detector already reported the
// episode c is about, at c's severity or above.
func (e *Engine) duplicate(c candidate) bool {
	for _, r := range e.reported {
		if r.Detector == c.Detector || r.EndStep < c.StartStep || r.Severity.Rank() < c.Severity.Rank() {
			// A nit about the same thing does not hold back a concern.
			continue
		}
		if c.anySubject || c.subject != 0 && r.subject == c.subject {
			return true
		}
	}
	return false
}

func (e *Engine) prune(oldest int) {
	i := 0
	for i < len(e.reported) && e.reported[i].EndStep < oldest {
		i++
	}
	if i > 0 {
		e.reported = append(e.reported[:0], e.reported[i:]...)
	}
}

// view is one step as detectors see it.
type view struct {
	n      int
	window int
	// text is the reply's text; final is set when it makes no calls;
	// claim is the sentence of text that claims success, if any.
	text  string
	lower []byte // text lowered by lowerInto; valid for this step only
	final bool
	claim string
	acts  []act
	// notes are the texts of the messages that came before this step:
	// user prompts, harness replies, notices. userSpoke is set when one
	// of them is the user's (a user message that is not the harness
	// rejecting a reply): new information, which ends any episode of
	// "nothing new".
	notes     []string
	userSpoke bool
	files     *fileTracker
	// checks is the state of runs before this step.
	checks *checkTracker
}

// act is one action with what the engine worked out about it.
type act struct {
	Action
	// cmd identifies the command; out its result (output and outcome) as
	// it is (polling works out the normalised one when it needs it); err
	// how it failed, when it failed.
	cmd, out, err sig
	// effects are what its edits did, including edits made by scripts it
	// ran.
	effects []editEffect
	// code describes the code the action runs, when known: inline code,
	// or a script the run wrote earlier.
	code    *codeFacts
	hasCode bool
	// writesCode is set when the action writes a script (a code file).
	writesCode bool
	written    codeFacts
}

// submits reports whether the step hands the work in: SWE-agent's submit,
// mini-swe-agent's final echo.
func (v *view) submits() bool {
	for i := range v.acts {
		c := v.acts[i].canonical
		if c == "submit" || strings.HasPrefix(c, "submit ") || strings.Contains(c, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") || strings.Contains(c, "MINI_SWE_AGENT_FINAL_OUTPUT") {
			return true
		}
	}
	return false
}

// oldest is the first step inside the window.
func (v *view) oldest() int { return v.n - v.window + 1 }

// build turns a step into a view and updates the file tracker.
func (e *Engine) build(st *transcript.Step) *view {
	v := &e.v
	acts := v.acts[:0]
	*v = view{n: st.N, window: e.s.Window, files: &e.files, checks: &e.checks}
	v.text = st.Text()
	e.lowered = lowerInto(e.lowered, v.text)
	v.lower = e.lowered
	v.claim = claimIn(v.text, v.lower)
	v.final = callCount(st) == 0
	for _, c := range st.Context {
		if t := noteText(c); t != "" {
			v.notes = append(v.notes, t)
			if m, ok := c.Body.(*session.Message); ok && m.Message.Role == llm.RoleUser && !rejects(&e.scratch, t, 2000) {
				v.userSpoke = true
			}
		}
	}
	if v.userSpoke {
		// What the user said is news: a file returning to an earlier
		// version after it may be what they asked for.
		e.files.heard(st.N)
	}
	clear(e.actions)
	e.actions = appendActions(e.actions[:0], st, &e.scratch)
	for _, a := range e.actions {
		acts = append(acts, e.enrich(a, st.N))
	}
	v.acts = acts
	return v
}

// noteText returns the text of a user or custom message entry.
func noteText(e session.Entry) string {
	switch b := e.Body.(type) {
	case *session.Message:
		if b.Message.Role == llm.RoleUser {
			return b.Message.Text()
		}
	case *session.Custom:
		var sb strings.Builder
		for _, c := range b.Content {
			sb.WriteString(c.Text)
		}
		return sb.String()
	}
	return ""
}

func (e *Engine) enrich(a Action, n int) act {
	x := act{Action: a}
	x.cmd = actionSig(a.Kind, a.canonical)
	if a.env != 0 {
		x.cmd = mix(x.cmd, a.env)
	}
	failed := sig(0)
	if a.Failed {
		failed = 1
		x.err = errorSig(a.Output)
	}
	x.out = mix(rawSig(a.Output), failed)

	// SWE-agent's editor works on the file it has open.
	if strings.HasPrefix(a.canonical, "open ") || strings.HasPrefix(a.canonical, "create ") {
		if f := strings.Fields(a.canonical); len(f) > 1 {
			e.openFile = strings.Clone(f[1])
		}
	}
	if len(a.paths) > 0 && a.Kind == KindRead && strings.HasPrefix(a.canonical, "open") {
		e.openFile = strings.Clone(a.paths[0])
	}

	if a.code != "" {
		c := scanSource(a.code, "")
		x.code, x.hasCode = &c, true
	}
	if !a.Failed || a.Kind != KindEdit {
		for _, ed := range a.Edits {
			if ed.Op == EditLines && ed.Path == "" {
				ed.Path = e.openFile
			}
			effs := e.files.apply(ed, n)
			x.effects = append(x.effects, effs...)
			if ed.Op == EditWrite && isCodePath(ed.Path) && len(effs) == 1 {
				x.writesCode = true
				x.written = effs[0].file.code
			}
		}
	}
	// After the edits: `cat > fix.py <<EOF … EOF; python fix.py` writes the
	// script it runs in the same command.
	for _, s := range a.scripts {
		if fs, ok := e.files.files[fileKey(s)]; ok && (len(fs.code.imports) > 0 || fs.code.writes) {
			c := fs.code
			x.code, x.hasCode = &c, true
		}
	}
	writer := x.hasCode && x.code.writes
	if writer && !a.Failed {
		// A script that rewrites files is an edit of the files it names.
		for _, t := range x.code.targets {
			x.effects = append(x.effects, e.files.apply(Edit{Path: t, Op: EditScript, New: a.canonical}, n)...)
		}
	} else if a.Run && e.newResult(x, n) {
		// A run that shows something new informs the next edit; one that
		// repeats an earlier run's result word for word does not.
		e.files.ran()
	}
	return x
}

// newResult reports whether a run's result (command and output) is new
// within the window, and remembers it.
func (e *Engine) newResult(x act, n int) bool {
	if e.runs == nil {
		e.runs = map[sig]int{}
	}
	key := mix(x.cmd, x.out)
	last, ok := e.runs[key]
	e.runs[key] = n
	if len(e.runs) > 4*e.s.Window {
		for k, s := range e.runs {
			if s < n-e.s.Window {
				delete(e.runs, k)
			}
		}
	}
	return !ok || last < n-e.s.Window
}

// isCodePath reports whether a path names a script or source file.
func isCodePath(p string) bool {
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return false
	}
	switch p[i:] {
	case ".py", ".js", ".mjs", ".ts", ".rb", ".sh", ".go", ".pl", ".php":
		return true
	}
	return false
}

// checkTracker remembers the last run, for detectors that judge claims.
type checkTracker struct {
	// runs counts the runs so far.
	runs int
	// last is the last run; lastStep its step.
	last     act
	lastStep int
	// lastKey is the last run's program (programKey of its canonical
	// command), such as "pytest" or "npm test".
	lastKey string
	// editedSince is set when a file changed after the last run.
	editedSince bool
	// projectEdits counts changes to files the run did not create, edits
	// every change.
	projectEdits, edits int
	// codeEdits counts changes to files that are not prose (code,
	// settings), which a run could check.
	codeEdits int
}

func (t *checkTracker) update(v *view) {
	for i := range v.acts {
		a := &v.acts[i]
		if a.Run && !(a.hasCode && a.code.writes) {
			t.runs++
			// Copies, so that the step's text is not kept alive (the last
			// run's copies serve again when they are the same).
			t.last = act{Action: Action{Command: keepCopy(t.last.Command, clip(a.Command, 200)), Failed: a.Failed, Test: a.Test, Output: keepCopy(t.last.Output, lastLine(a.Output))}}
			t.lastStep = v.n
			t.lastKey = keepCopy(t.lastKey, runKey(a.canonical))
			t.editedSince = false
		}
		for _, ef := range a.effects {
			if ef.changed {
				t.editedSince = true
				t.edits++
				if !ef.file.created {
					t.projectEdits++
				}
				if !isProse(ef.file.key) {
					t.codeEdits++
				}
			}
		}
	}
}

// keepCopy returns a copy of s: old when it is the same text.
func keepCopy(old, s string) string {
	if s == old {
		return old
	}
	return strings.Clone(s)
}

// lastLine returns the last meaningful line of an output.
func lastLine(out string) string {
	var buf [1]string
	l := appendLastLines(buf[:0], out, 1)
	if len(l) == 0 {
		return ""
	}
	return l[0]
}
