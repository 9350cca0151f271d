package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/transcript"
)

// The reader conformance suite, in the spirit of testing/slogtest: one
// table of things an agent does, each with the action it must become, run
// against a session of each format vigil reads that does them all in a
// row (testdata/conformance/, written by write.py there). A detector sees
// only actions, so when every format maps a scenario to the same action,
// the detector works on every format without knowing it. A scenario a
// harness cannot express is absent from its session, with the reason.

// conformanceScenario is one thing an agent does and the action it must map
// to, whatever the harness.
type conformanceScenario struct {
	name string
	kind Kind
	// shell is the command line as the model writes it in a shell; the
	// action's canonical form must be this line's. "" when the scenario is
	// not a shell command in every harness (edits, refusals).
	shell string
	// path is the file the action names (matched at the end: harnesses
	// give it relative or absolute).
	path string
	// edits are the operations of the action's edits, in order.
	edits     []EditOp
	test, run bool
	failed    bool
	refused   bool
	// background is set when the job goes on after the call returns.
	background bool
	// exit is the exit code; it is checked only in formats that show one
	// (conformanceFormat.exits).
	exit int
	// empty is set when the result holds nothing but the harness's own
	// words for "no output", output when it holds more; with neither, it
	// is not checked.
	empty, output bool
}

var conformanceScenarios = []conformanceScenario{
	{name: "tests-fail", kind: KindShell, shell: "python3 -m pytest -q", test: true, run: true, failed: true, exit: 1, output: true},
	{name: "command-fails", kind: KindShell, shell: `python3 -c "import yaml"`, run: true, failed: true, exit: 1, output: true},
	{name: "edit-not-found", kind: KindEdit, path: "calc.py", edits: []EditOp{EditReplace}, failed: true, exit: -1},
	{name: "edit-not-unique", kind: KindEdit, path: "calc.py", edits: []EditOp{EditReplace}, failed: true, exit: -1},
	{name: "edit-rejected", kind: KindEdit, path: "calc.py", edits: []EditOp{EditReplace}, failed: true, exit: -1},
	{name: "refused-unknown-tool", failed: true, refused: true, exit: -1},
	{name: "refused-bad-arguments", failed: true, refused: true, exit: -1},
	{name: "edit-applies", kind: KindEdit, path: "calc.py", edits: []EditOp{EditReplace}, exit: -1},
	{name: "tests-pass", kind: KindShell, shell: "python3 -m pytest -q", test: true, run: true, output: true},
	{name: "revert", kind: KindEdit, shell: "git checkout -- calc.py", path: "calc.py", edits: []EditOp{EditRestore}, output: true},
	{name: "background", kind: KindShell, shell: "python3 -m http.server 8000 > /dev/null 2>&1 &", run: true, background: true},
	{name: "empty-output", kind: KindShell, shell: "mkdir -p build", empty: true},
	// A command the harness's sandbox or permissions refused, or the
	// system denied, with no exit code to show it: a failure everywhere.
	{name: "sandbox-denied", kind: KindShell, shell: "mkdir -p /opt/calc", failed: true, exit: -1},
}

// exitShown says when a format's results show the exit code.
type exitShown uint8

const (
	exitNever     exitShown = iota // no exit codes at all
	exitOnFailure                  // only when it is not 0
	exitAlways
)

// conformanceFormat is one recorded session and what its format cannot
// express.
type conformanceFormat struct {
	file   string
	format transcript.Format
	exits  exitShown
	// absent are the scenarios the session leaves out, each with why the
	// harness cannot express it.
	absent map[string]string
	// differ are fields of a scenario that the harness records otherwise,
	// each with why; the field is then not checked.
	differ map[string]string
	// leading counts the steps with calls before the first scenario (a
	// read a later scenario needs), trailing those after the last (a
	// submission).
	leading, trailing int
	// consecutive is set when every step up to the last call makes a
	// call, so that a reply split in two, or a fake step, shows in the
	// steps' numbers.
	consecutive bool
}

var conformanceFormats = []conformanceFormat{
	{file: "vigil.jsonl", format: transcript.FormatVigil, exits: exitOnFailure, absent: map[string]string{
		"sandbox-denied": sandboxCovered,
		"edit-rejected":  "vigil's edit runs no linter",
	}},
	{file: "claude-code.jsonl", format: transcript.FormatClaudeCode, exits: exitOnFailure, absent: map[string]string{
		"edit-rejected": "Claude Code's Edit runs no linter",
	}, differ: map[string]string{
		"background/shell": "run_in_background: the command has no &",
	}},
	// The same session with a system line between each reply's text and
	// its call: still one step each.
	{file: "claude-code-split.jsonl", format: transcript.FormatClaudeCode, exits: exitOnFailure, consecutive: true, absent: map[string]string{
		"edit-rejected": "Claude Code's Edit runs no linter",
	}, differ: map[string]string{
		"background/shell": "run_in_background: the command has no &",
	}},
	// What claude -p --output-format stream-json prints for that session.
	{file: "claude-stream.jsonl", format: transcript.FormatClaudeStream, exits: exitOnFailure, consecutive: true, absent: map[string]string{
		"edit-rejected": "Claude Code's Edit runs no linter",
	}, differ: map[string]string{
		"background/shell": "run_in_background: the command has no &",
	}},
	{file: "codex.jsonl", format: transcript.FormatCodex, exits: exitAlways, absent: map[string]string{
		"edit-not-unique": "apply_patch applies a hunk at its first match",
		"edit-rejected":   "apply_patch runs no linter",
	}, differ: map[string]string{
		"edit-applies/exit code": "apply_patch given to exec_command reports an exit code",
		"background/shell":       "a process left running in an exec session: the command has no &",
		"background/exit code":   "a process left running has no exit code yet",
	}},
	{file: "pi.jsonl", format: transcript.FormatPi, exits: exitOnFailure, absent: map[string]string{
		"sandbox-denied": sandboxCovered,
		"edit-rejected":  "pi's edit runs no linter",
	}},
	// pi's session without its header line.
	{file: "pi-headerless.jsonl", format: transcript.FormatPi, exits: exitOnFailure, consecutive: true, absent: map[string]string{
		"edit-rejected":  "pi's edit runs no linter",
		"sandbox-denied": sandboxCovered,
	}},
	{file: "omp.jsonl", format: transcript.FormatOmp, exits: exitOnFailure, absent: map[string]string{
		"sandbox-denied": sandboxCovered,
		"edit-rejected":  "omp's edit runs no linter",
	}},
	// omp's edit in its hashline mode: the patch names lines by number
	// and the reader gives the edit the canonical old and new text.
	{file: "omp-hashline.jsonl", format: transcript.FormatOmp, exits: exitOnFailure, leading: 1, absent: map[string]string{
		"sandbox-denied":        ompCovered,
		"tests-fail":            ompCovered,
		"command-fails":         ompCovered,
		"edit-not-unique":       "a line number names one place",
		"edit-rejected":         "omp's edit runs no linter",
		"refused-unknown-tool":  ompCovered,
		"refused-bad-arguments": ompCovered,
		"tests-pass":            ompCovered,
		"revert":                ompCovered,
		"background":            ompCovered,
		"empty-output":          ompCovered,
	}},
	{file: "mini-swe-agent.traj.json", format: transcript.FormatMiniSWEAgent, exits: exitAlways, trailing: 1, absent: map[string]string{
		"sandbox-denied":        "every observation has a return code, which command-fails checks",
		"edit-not-found":        "only a shell: sed and friends do not fail when the text is missing",
		"edit-not-unique":       "only a shell: sed and friends do not fail when the text is not unique",
		"edit-rejected":         "only a shell, no linter",
		"refused-unknown-tool":  "a reply whose calls it cannot parse is not recorded, only the harness's complaint",
		"refused-bad-arguments": "a reply whose calls it cannot parse is not recorded, only the harness's complaint",
	}, differ: map[string]string{
		"edit-applies/exit code": "an edit made with sed reports the shell's exit code",
	}},
	{file: "swe-agent.traj", format: transcript.FormatSWEAgent, exits: exitNever, trailing: 1, absent: map[string]string{
		"edit-rejected":         "str_replace_editor applies an edit the linter complains about",
		"refused-unknown-tool":  "a rejected reply is re-queried and kept in the trajectory without its call or the harness's message",
		"refused-bad-arguments": "a rejected reply is re-queried and kept in the trajectory without its call or the harness's message",
	}},
	{file: "swe-agent-windowed.traj", format: transcript.FormatSWEAgent, exits: exitNever, trailing: 1, absent: map[string]string{
		"sandbox-denied":        "covered by swe-agent.traj",
		"edit-not-found":        "the windowed edit replaces lines by number",
		"edit-not-unique":       "the windowed edit replaces lines by number",
		"refused-unknown-tool":  "text actions: any command goes to the shell",
		"refused-bad-arguments": "text actions: any command goes to the shell",
		"revert":                "covered by swe-agent.traj",
		"background":            "covered by swe-agent.traj",
		"empty-output":          "covered by swe-agent.traj",
	}, differ: map[string]string{
		"edit-rejected/edits": "edit N:M replaces lines",
		"edit-applies/edits":  "edit N:M replaces lines",
	}},
	{file: "openhands-v1.jsonl", format: transcript.FormatOpenHands, exits: exitAlways, trailing: 1, absent: map[string]string{
		"sandbox-denied": "observations carry the exit code, which command-fails checks; a declined call is its own observation",
		"edit-rejected":  "file_editor runs no linter before it writes",
	}},
	// The resolver's early output: edits are run_ipython cells calling
	// the agentskills helpers.
	{file: "openhands-resolver.jsonl", format: transcript.FormatOpenHands, exits: exitAlways, trailing: 1, consecutive: true, absent: map[string]string{
		"edit-rejected":         "edit_file_by_replace lints after it writes",
		"refused-unknown-tool":  "a call the agent cannot parse is not recorded",
		"refused-bad-arguments": "a call the agent cannot parse is not recorded",
		"sandbox-denied":        "observations carry the exit code, which command-fails checks",
	}},
	{file: "openhands-v0.json", format: transcript.FormatOpenHands, exits: exitAlways, trailing: 1, absent: map[string]string{
		"sandbox-denied":        "observations carry the exit code, which command-fails checks; a declined call is its own observation",
		"edit-rejected":         "str_replace_editor runs no linter before it writes",
		"refused-unknown-tool":  "a call the agent cannot parse or does not have is not recorded, only an error observation",
		"refused-bad-arguments": "a call the agent cannot parse or does not have is not recorded, only an error observation",
	}},
	{file: "aider.chat.history.md", format: transcript.FormatAider, exits: exitNever, absent: map[string]string{
		"sandbox-denied":        aiderNoCommands,
		"tests-fail":            aiderNoCommands,
		"command-fails":         aiderNoCommands,
		"tests-pass":            aiderNoCommands,
		"revert":                aiderNoCommands,
		"background":            aiderNoCommands,
		"empty-output":          aiderNoCommands,
		"edit-not-unique":       "a SEARCH block replaces its first match",
		"edit-rejected":         "aider lints after it applies an edit: the edit stands",
		"refused-unknown-tool":  "no tools: a reply's edits are SEARCH/REPLACE blocks in its text",
		"refused-bad-arguments": "no tools: a reply's edits are SEARCH/REPLACE blocks in its text",
	}},
	// aider launched with a --message of two lines, and a reasoning
	// model's thinking before a reply's blocks.
	{file: "aider-message.chat.history.md", format: transcript.FormatAider, exits: exitNever, consecutive: true, absent: map[string]string{
		"tests-fail":            aiderNoCommands,
		"command-fails":         aiderNoCommands,
		"tests-pass":            aiderNoCommands,
		"revert":                aiderNoCommands,
		"background":            aiderNoCommands,
		"empty-output":          aiderNoCommands,
		"sandbox-denied":        aiderNoCommands,
		"edit-not-unique":       "a SEARCH block replaces its first match",
		"edit-rejected":         "aider lints after it applies an edit: the edit stands",
		"refused-unknown-tool":  "no tools: a reply's edits are SEARCH/REPLACE blocks in its text",
		"refused-bad-arguments": "no tools: a reply's edits are SEARCH/REPLACE blocks in its text",
	}},
	// aider in its whole edit format: a reply gives each file it changes
	// whole.
	{file: "aider-whole.chat.history.md", format: transcript.FormatAider, exits: exitNever, absent: map[string]string{
		"sandbox-denied":        aiderNoCommands,
		"tests-fail":            aiderNoCommands,
		"command-fails":         aiderNoCommands,
		"tests-pass":            aiderNoCommands,
		"revert":                aiderNoCommands,
		"background":            aiderNoCommands,
		"empty-output":          aiderNoCommands,
		"edit-not-found":        aiderWhole,
		"edit-not-unique":       aiderWhole,
		"edit-rejected":         "aider lints after it applies an edit: the edit stands",
		"refused-unknown-tool":  "no tools: a reply's edits are the files it gives whole",
		"refused-bad-arguments": "no tools: a reply's edits are the files it gives whole",
	}, differ: map[string]string{
		"edit-applies/edits": "the whole edit format writes the whole file",
	}},
}

// sandboxCovered is why a session holds no command its sandbox refused:
// the harness flags a refused or failed call itself (an error flag, an
// exit code), which command-fails checks; there are no words to read.
const sandboxCovered = "the harness flags a refused or failed call itself, which command-fails checks"

// ompCovered is why omp's hashline session holds only the edits: the
// other scenarios do not depend on the edit mode, and omp.jsonl has them.
const ompCovered = "covered by omp.jsonl"

// aiderWhole is why aider's whole-format session holds no failed edit: a
// file given whole names no text to find.
const aiderWhole = "the whole edit format gives the whole file: there is no text to find"

// aiderNoCommands is why aider's sessions hold no command scenario: the
// history records the user's /run and /test with their output, but not
// which suggested shell command the model's reply led aider to run.
const aiderNoCommands = "the history records commands the user ran (/run, /test), not calls of the model"

func TestReaderConformance(t *testing.T) {
	for _, f := range conformanceFormats {
		t.Run(f.file, func(t *testing.T) {
			acts := conformanceActions(t, f)
			want := f.scenarios(t)
			if len(acts) != f.leading+len(want)+f.trailing {
				t.Fatalf("%s: %d steps with calls, want %d before the scenarios, %d scenarios and %d after", f.format, len(acts), f.leading, len(want), f.trailing)
			}
			for i, sc := range want {
				for _, problem := range f.check(sc, acts[f.leading+i]) {
					t.Errorf("%s/%s (step with calls %d): %s", f.format, sc.name, f.leading+i+1, problem)
				}
			}
		})
	}
}

// scenarios returns the scenarios the format's session holds, in order.
func (f conformanceFormat) scenarios(t *testing.T) []conformanceScenario {
	var out []conformanceScenario
	for _, sc := range conformanceScenarios {
		if f.absent[sc.name] == "" {
			out = append(out, sc)
		}
	}
	for name := range f.absent {
		if !slices.ContainsFunc(conformanceScenarios, func(s conformanceScenario) bool { return s.name == name }) {
			t.Fatalf("%s: absent names no scenario: %q", f.file, name)
		}
	}
	return out
}

// conformanceActions reads a session with the transcript package, as vigil
// review does, and returns the action of each step that makes a call.
func conformanceActions(t *testing.T, f conformanceFormat) []Action {
	t.Helper()
	path := filepath.Join("testdata", "conformance", f.file)
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, err := transcript.NewReader(file, f.file)
	if err != nil {
		t.Fatal(err)
	}
	var st transcript.Stepper
	var acts []Action
	take := func(s transcript.Step) {
		a := Actions(&s)
		switch len(a) {
		case 0:
		case 1:
			if f.consecutive && s.N != len(acts)+1 {
				t.Errorf("%s: the call of step with calls %d is in step %d: a step without one came before it", f.format, len(acts)+1, s.N)
			}
			acts = append(acts, a[0])
		default:
			t.Errorf("%s: step %d makes %d calls, want one", f.format, s.N, len(a))
		}
	}
	runs := 0
	for it, err := range r.Items() {
		if err != nil {
			t.Fatal(err)
		}
		if it.Run != nil {
			runs++
			continue
		}
		for _, s := range st.Add(it.Entry) {
			take(s)
		}
	}
	if s, ok := st.Flush(); ok {
		take(s)
	}
	if runs != 1 || r.Format() != f.format {
		t.Fatalf("%s: %d runs of format %s, want one of %s", f.file, runs, r.Format(), f.format)
	}
	return acts
}

// check returns how a differs from what the scenario wants.
func (f conformanceFormat) check(sc conformanceScenario, a Action) []string {
	var problems []string
	field := func(name string, got, want any) {
		if f.differ[sc.name+"/"+name] != "" {
			return
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			problems = append(problems, fmt.Sprintf("%s = %v, want %v", name, got, want))
		}
	}
	field("answered", a.Answered, true)
	field("failed", a.Failed, sc.failed)
	field("refused", a.Refused, sc.refused)
	field("test", a.Test, sc.test)
	field("run", a.Run, sc.run)
	field("background", a.Background, sc.background)
	if sc.refused {
		field("edits", len(a.Edits), 0)
	} else {
		field("kind", a.Kind, sc.kind)
		var ops []EditOp
		for _, e := range a.Edits {
			ops = append(ops, e.Op)
			if sc.path != "" && !pathIs(e.Path, sc.path) {
				field("path", e.Path, sc.path)
			}
		}
		field("edits", ops, sc.edits)
		if sc.path != "" && !pathIs(a.Path, sc.path) {
			field("path", a.Path, sc.path)
		}
	}
	if sc.shell != "" {
		field("shell", a.canonical, analyseShell(sc.shell).canonical)
	}
	wantExit := -1
	switch {
	case f.exits == exitAlways && sc.exit >= 0, f.exits == exitOnFailure && sc.exit > 0:
		wantExit = sc.exit
	}
	field("exit code", a.ExitCode, wantExit)
	if sc.empty || sc.output {
		field("empty", a.Empty, sc.empty)
	}
	return problems
}

// pathIs reports whether got names the file want: the same path, or one
// that ends in it.
func pathIs(got, want string) bool {
	return got == want || strings.HasSuffix(got, "/"+want)
}

// FuzzResultText checks what an action makes of any result text: the
// state line SWE-agent ends an observation with comes off whole or not at
// all, and the harnesses' words for no output do not depend on a trailing
// line end.
func FuzzResultText(f *testing.F) {
	f.Add("a\n(Open file: /r/a.py)\n(Current directory: /r)\nbash-$")
	f.Add("(Open file: n/a)\n(Current directory: /r)\r\nbash-$\n")
	f.Add("(no output)\n\nCommand exited with code 1")
	f.Add("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n")
	f.Add("Error validating args {} for tool 'x': bad")
	f.Fuzz(func(t *testing.T, out string) {
		rest, open := cutSWEState(out)
		if !strings.HasPrefix(out, rest) || strings.ContainsAny(open, "\n") || rest == out && open != "" {
			t.Errorf("cutSWEState(%q) = %q, %q", out, rest, open)
		}
		if len(out) < 500 && noOutput(out) != noOutput(out+"\n") {
			t.Errorf("noOutput(%q) changes with a line end", out)
		}
		_ = harnessRefused(out)
		_ = stillRunning(out)
	})
}
