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

// summariser reduces steps to what the timeline keeps, copying their
// text so that a summary holds no reference to the step's decoded text.
type summariser struct {
	// tools interns tool names, which repeat from step to step.
	tools map[string]string
}

// maxTools bounds how many tool names a summariser interns.
const maxTools = 64

// summarise reduces a step, with the actions the engine derived from it,
// to what the timeline keeps. The strings of a summary share one copy.
func (sm *summariser) summarise(st *transcript.Step, acts []rules.Action) StepInfo {
	text, textCut := cutLine(firstText(st), maxText)
	size := len(text) + cutLen(textCut)
	for _, a := range acts {
		c, cut := cutLine(a.Command, maxText)
		size += len(c) + cutLen(cut)
	}
	var b strings.Builder
	b.Grow(size)
	put := func(s string, cut bool) (int, int) {
		from := b.Len()
		b.WriteString(s)
		if cut {
			b.WriteString(cutMark)
		}
		return from, b.Len()
	}
	type bounds struct{ from, to int }
	var cmdsBuf [8]bounds
	cmds := cmdsBuf[:0]
	tf, tt := put(text, textCut)
	for _, a := range acts {
		from, to := put(cutLine(a.Command, maxText))
		cmds = append(cmds, bounds{from, to})
	}
	all := b.String()
	si := StepInfo{N: st.N, Text: all[tf:tt]}
	if len(acts) > 0 {
		si.Calls = make([]Call, len(acts))
	}
	for i, a := range acts {
		si.Calls[i] = Call{
			Tool:     sm.tool(a.Tool),
			Kind:     a.Kind.String(),
			Command:  all[cmds[i].from:cmds[i].to],
			Failed:   a.Failed,
			ExitCode: a.ExitCode,
		}
	}
	return si
}

// tool returns a copy of a tool name, the same copy each time.
func (sm *summariser) tool(name string) string {
	if t, ok := sm.tools[name]; ok {
		return t
	}
	t := strings.Clone(name)
	if sm.tools == nil {
		sm.tools = map[string]string{}
	}
	if len(sm.tools) < maxTools {
		sm.tools[t] = t
	}
	return t
}

// firstText returns the first non-blank line of the reply's text, not
// yet shortened: the first text block that has one.
func firstText(st *transcript.Step) string {
	m := st.Message()
	if m == nil {
		return ""
	}
	for _, b := range m.Message.Content {
		if b.Type != llm.BlockText {
			continue
		}
		if l, _ := cutLine(b.Text, maxText); l != "" {
			return b.Text
		}
	}
	return ""
}

// cutMark marks a shortened text.
const cutMark = " …"

func cutLen(cut bool) int {
	if cut {
		return len(cutMark)
	}
	return 0
}

// shorten returns a copy of the first non-blank line of s, cut to at
// most n bytes on a character boundary; "…" marks anything left out.
func shorten(s string, n int) string {
	line, cut := cutLine(s, n)
	if cut {
		return line + cutMark
	}
	return strings.Clone(line)
}

// cutLine returns the first non-blank line of s, cut to at most n bytes
// on a character boundary, and whether anything was left out.
func cutLine(s string, n int) (string, bool) {
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
	return s, cut
}
