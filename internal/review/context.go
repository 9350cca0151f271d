package review

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// Context is what a finding is about, as the run showed it at the step
// where the finding was reported (its EndStep): the instruction the agent
// was working to, the failing output and the change the step made. Its
// texts are copies, bounded, with secrets redacted ([history.Redactor]
// with no values of its own: key shapes and secret-looking assignments).
type Context struct {
	// Instruction is the user's last message before the finding's last
	// step (the run's task when there was no other), white space folded,
	// at most maxInstruction bytes; "" when the run records none.
	Instruction string
	// InstructionStep is the step the instruction came before: 1 for the
	// run's task.
	InstructionStep int
	// Command is the last call that failed within the finding's steps
	// (its command, cut to one line), FailedStep its step, ExitCode its
	// exit code (-1 when its output shows none) and Output the last lines
	// of its result (at most maxOutputLines lines and maxOutputBytes
	// bytes). All are empty when no call failed within its steps.
	Command    string
	FailedStep int
	ExitCode   int
	Output     string
	// Diff is the change the step's edit, write and patch calls made, as
	// the lines of a unified diff ([history.Change]), at most maxDiffLines
	// lines in all; "" when the step changed no file it shows.
	Diff string
}

// Bounds of what a Context keeps.
const (
	maxInstruction = 400
	maxOutputLines = 8
	maxOutputBytes = 1200
	maxDiffLines   = 40
)

// redactor hides key shapes and secret-looking assignments in what a
// context quotes.
var redactor = sync.OnceValue(func() *history.Redactor { return history.NewRedactor(nil, nil) })

// instruction is the last instruction a run's steps have shown so far.
type instruction struct {
	text string
	step int
}

// see takes the entries before step n: a user message that is not the
// advisor's advice becomes the instruction.
func (in *instruction) see(entries []session.Entry, n int) {
	for _, e := range entries {
		m, ok := e.Body.(*session.Message)
		if !ok || m.Message.Role != llm.RoleUser || history.IsAdvice(e) {
			continue
		}
		if t := foldText(m.Message.Text(), maxInstruction); t != "" {
			in.text, in.step = t, n
		}
	}
}

// failure is the last failing call a run's steps have shown so far, its
// texts copied and bounded, not yet redacted.
type failure struct {
	step     int
	command  string
	exitCode int
	output   string
}

// see takes step n's actions: the last one that failed becomes the
// failure.
func (f *failure) see(acts []rules.Action, n int) {
	for i := len(acts) - 1; i >= 0; i-- {
		if a := &acts[i]; a.Failed && a.Answered {
			line, _ := cutLine(a.Command, maxText)
			*f = failure{step: n, command: strings.Clone(line), exitCode: a.ExitCode, output: strings.Clone(tail(a.Output, maxOutputLines, maxOutputBytes))}
			return
		}
	}
}

// contextOf is the context of a finding that starts at step start and is
// reported at step st.
func contextOf(st *transcript.Step, start int, in instruction, f failure) Context {
	c := Context{Instruction: in.text, InstructionStep: in.step}
	if f.step > 0 && f.step >= start {
		c.Command, c.FailedStep, c.ExitCode = redactor().Redact(f.command), f.step, f.exitCode
		c.Output = redactor().Redact(f.output)
	}
	var diffs []string
	lines := 0
	for _, call := range st.Calls() {
		if lines >= maxDiffLines {
			break
		}
		if d := history.Change(call.Name, call.Arguments, maxDiffLines-lines, redactor()); d != "" {
			diffs = append(diffs, d)
			lines += strings.Count(d, "\n") + 1
		}
	}
	c.Diff = strings.Join(diffs, "\n")
	return c
}

// foldText folds s's white space to single spaces, redacts it and cuts it
// to at most n bytes on a character boundary, " …" marking the cut.
func foldText(s string, n int) string {
	s = redactor().Redact(strings.Join(strings.Fields(s), " "))
	if len(s) <= n {
		return s
	}
	line, _ := cutLine(s, n)
	return line + cutMark
}

// tail returns the last lines of s, at most n lines and about maxBytes
// bytes (cut at a line break when one is near, else on a character
// boundary), without trailing white space.
func tail(s string, n, maxBytes int) string {
	s = strings.TrimRight(s, " \t\r\n")
	at := len(s)
	for range n {
		i := strings.LastIndexByte(s[:at], '\n')
		if i < 0 {
			at = 0
			break
		}
		at = i
	}
	if at > 0 {
		at++ // after the line break
	}
	s = s[at:]
	if len(s) > maxBytes {
		cut := len(s) - maxBytes
		if i := strings.IndexByte(s[cut:], '\n'); i >= 0 && i < maxBytes/2 {
			cut += i + 1
		} else {
			for cut < len(s) && !utf8.RuneStart(s[cut]) {
				cut++
			}
		}
		s = "… " + s[cut:]
	}
	return s
}
