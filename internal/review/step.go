package review

import (
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// StepInfo is what the timeline keeps of one step.
type StepInfo struct {
	// N is the step's number in its run, from 1.
	N int
	// Text is the first line of the reply's text, shortened.
	Text string
	// Calls are the reply's tool calls, in order.
	Calls []Call
}

// Failed reports whether any call of the step failed.
func (s *StepInfo) Failed() bool {
	for _, c := range s.Calls {
		if c.Failed {
			return true
		}
	}
	return false
}

// Call is what the timeline keeps of one tool call.
type Call struct {
	// Tool is the tool's name as recorded.
	Tool string
	// Kind is what the call does, as the detectors see it: shell, read,
	// search, edit or other.
	Kind string
	// Command is the shell command, or a one-line rendering of the call,
	// shortened to its first line and at most maxText bytes.
	Command string
	// Failed is set when the call's result is an error (see
	// [rules.Action]).
	Failed bool
	// ExitCode is the exit code the result shows; -1 when it shows none.
	ExitCode int
}

// maxText is how long a kept text or command may be, in bytes.
const maxText = 160

// summarise reduces a step, with the actions the engine derived from it,
// to what the timeline keeps. Every string is copied, so the summary
// holds no reference to the step's decoded text.
func summarise(st *transcript.Step, acts []rules.Action) StepInfo {
	si := StepInfo{N: st.N, Text: firstText(st)}
	if len(acts) > 0 {
		si.Calls = make([]Call, len(acts))
	}
	for i, a := range acts {
		si.Calls[i] = Call{
			Tool:     strings.Clone(a.Tool),
			Kind:     a.Kind.String(),
			Command:  shorten(a.Command, maxText),
			Failed:   a.Failed,
			ExitCode: a.ExitCode,
		}
	}
	return si
}

// firstText returns the first non-blank line of the reply's text,
// shortened.
func firstText(st *transcript.Step) string {
	m := st.Message()
	if m == nil {
		return ""
	}
	for _, b := range m.Message.Content {
		if b.Type != llm.BlockText {
			continue
		}
		if s := shorten(b.Text, maxText); s != "" {
			return s
		}
	}
	return ""
}

// shorten returns a copy of the first non-blank line of s, cut to at
// most n bytes on a character boundary; "…" marks anything left out.
func shorten(s string, n int) string {
	s = strings.TrimLeft(s, " \t\r\n")
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = s[:i], strings.TrimSpace(s[i:]) != ""
	}
	s = strings.TrimRight(s, " \t\r")
	if len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s, cut = s[:i], true
	}
	if cut {
		return s + " …"
	}
	return strings.Clone(s)
}
