package rules

import "fmt"

// SignalKind names what a signal saw.
type SignalKind string

// The kinds of signal. [SignalKinds] documents each.
const (
	// SignalCheckEdited: a test or check file edited right after a run
	// of it failed.
	SignalCheckEdited SignalKind = "check-edited"
	// SignalCheckWeakened: a skip marker, an always-true assertion, an
	// assertion commented out or removed, a test emptied.
	SignalCheckWeakened SignalKind = "check-weakened"
	// SignalCheckOff: a flag, variable or setting that turns a check, a
	// verification or a hook off, or a command that hides an exit code.
	SignalCheckOff SignalKind = "check-off"
	// SignalUnverifiedEdits: many edits with nothing built or run.
	SignalUnverifiedEdits SignalKind = "unverified-edits"
	// SignalSuccessClaim: a claim that the work is done or works.
	SignalSuccessClaim SignalKind = "success-claim"
	// SignalRepeatFailure: a command failing the same way a second time.
	SignalRepeatFailure SignalKind = "repeat-failure"
	// SignalHarnessFailure: a call refused or failed by the harness,
	// its sandbox, the user or the system, with no exit code to show it.
	SignalHarnessFailure SignalKind = "harness-failure"
	// SignalUnknownTool: a call of a tool the harness does not have.
	SignalUnknownTool SignalKind = "unknown-tool"
	// SignalStoppedShort: the turn ends on a reply that announces more
	// work.
	SignalStoppedShort SignalKind = "stopped-short"
	// SignalEmptyProbes: one program returning nothing call after call
	// however its arguments change.
	SignalEmptyProbes SignalKind = "empty-probes"
	// SignalUserPushback: the first edit after the user reported a
	// failure or rejected the work.
	SignalUserPushback SignalKind = "user-pushback"
)

// Signal is a reason for a model advisor to look at a step: a cheap,
// high-recall mark where something may be going wrong. Unlike a
// [Finding], a signal is not a verdict and is never shown to the agent;
// it tells a gated advisor when to look and where ("the rules saw X at
// step N"). The engine reports signals beside findings, in the same pass
// over the steps, at no token cost.
type Signal struct {
	// Kind says what was seen.
	Kind SignalKind `json:"kind"`
	// Step is the step at which the signal fires: where the thing was
	// seen.
	Step int `json:"step"`
	// Detail names what was seen, briefly and with a quote from the step
	// ("`git commit --no-verify`", "tests/test_a.py after `pytest`
	// failed at step 4").
	Detail string `json:"detail"`
}

// String renders a signal on one line: its step, kind and detail.
func (s Signal) String() string {
	return fmt.Sprintf("step %d %s: %s", s.Step, s.Kind, s.Detail)
}

// SignalInfo describes a signal kind for documentation and listings.
type SignalInfo struct {
	// Kind is the kind's name, as signals carry it.
	Kind SignalKind
	// Doc says in one paragraph what it looks for and when it fires.
	Doc string
}

// signalInfos documents the kinds, in the order the engine looks for
// them.
var signalInfos = []SignalInfo{
	{SignalCheckEdited, "An edit of a test file, or of a file that configures checks (pytest.ini, " +
		"conftest.py, package.json, a CI workflow), within FollowUp steps (default 3) of a failed " +
		"test or check run: the agent may be changing the check to match the output instead of " +
		"fixing the cause. Fires at the edit."},
	{SignalCheckWeakened, "An edit that adds a skip or suppression marker (@pytest.mark.skip, " +
		"t.Skip, # noqa, # type: ignore, eslint-disable, @ts-ignore), an always-true assertion " +
		"(assert True, expect(true).toBe(true)), comments out an assertion, or leaves a test file " +
		"with fewer assertions than it had (an emptied test). Fires at the edit, failure or not."},
	{SignalCheckOff, "A command or setting that turns a check, a verification or a hook off: " +
		"--no-verify, pytest -k 'not …', --deselect, SKIP_…=1, -DskipTests, --no-check; a config " +
		"edit that disables lint or type checks (strict: false, ignoreBuildErrors, " +
		"continue-on-error); and, within FollowUp steps of a failure, a command that hides the " +
		"exit code (|| true, ; echo EXIT:$?, output sent to /dev/null). Fires at the command or " +
		"edit."},
	{SignalUnverifiedEdits, "Five file changes in a row with nothing built, tested or run in " +
		"between. Fires at the fifth change, once per stretch of changes, and once more at the " +
		"first change of a test file after it (a test is written to be run)."},
	{SignalSuccessClaim, "A claim of success with no run behind it: a reply that says tests pass, " +
		"the issue is fixed, it works now, deployed, done, phase or tasks complete, or a checked " +
		"box (- [x]), or an edit that ticks boxes in a task list, when files were changed and " +
		"nothing has been run since (or in the whole run), or the last run failed. A claim that a " +
		"passing run after the last change backs is left alone, and so are decorative marks " +
		"such as ✅. Fires at the claim."},
	{SignalRepeatFailure, "A command failing with the same error as an earlier call within the " +
		"window (the second identical failure; repeated-failure waits for the third). Fires at " +
		"the second failure."},
	{SignalHarnessFailure, "A call the harness reports as failed or refused in words, with no " +
		"exit code to show it: Codex's \"failed in sandbox\" and \"sandbox denied\", " +
		"\"permission denied\", \"operation not permitted\", a tool use the user rejected or an " +
		"approval declined. A failure whose exit code the result shows is an ordinary failure. " +
		"Fires at the call."},
	{SignalUnknownTool, "A call of a tool the harness does not have (\"No such tool " +
		"available\", \"unknown tool\", \"is not a valid tool\"). Fires at the call."},
	{SignalEmptyProbes, "Three calls in a row of one program (curl, grep, find, a script) that return " +
		"nothing, however their arguments change, in steps next to each other: probing that finds " +
		"nothing, where a different approach (the documentation, a search) would. Programs that " +
		"print nothing when they succeed (mkdir, cp, git add) do not count. Fires at the third."},
	{SignalUserPushback, "The first file change after a user message (not the task that started " +
		"the run) that reports a failure or rejects the work: it says the work fails, is still " +
		"broken or wrong, asks to stop or revert, or pastes an error or a traceback. The agent is " +
		"about to act on a correction, where test rewrites and out-of-bounds edits start. Fires " +
		"at that change."},
	{SignalStoppedShort, "A reply with no tool calls (the turn ends on it) whose last sentences " +
		"announce more work: \"Now I'll run the tests.\", \"Let me fix the import:\". Fires at that " +
		"reply."},
}

// SignalKinds describes every kind of signal.
func SignalKinds() []SignalInfo {
	return append([]SignalInfo(nil), signalInfos...)
}

// LastSignals returns the signals of the step Observe last took, in the
// order it found them; a step has at most one signal of each kind. The
// slice is the engine's and the details may refer to the step's text:
// both are valid until the next call to Observe or Reset, so a caller
// that keeps anything of them must copy it. Signals are found in the
// same pass as findings, whatever Settings.Disabled says of detectors;
// with Settings.NoSignals there are none.
func (e *Engine) LastSignals() []Signal {
	return e.signals
}
