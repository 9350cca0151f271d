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
	text, textCut := firstText(st)
	size := len(text) + cutLen(textCut)
	var cmdLinesBuf [8]cutText
	cmdLines := cmdLinesBuf[:0]
	for _, a := range acts {
		c, cut := cutLine(a.Command, maxText)
		cmdLines = append(cmdLines, cutText{c, cut})
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
	for _, c := range cmdLines {
		from, to := put(c.s, c.cut)
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

// cutText is a line cut by cutLine.
type cutText struct {
	s   string
	cut bool
}

// firstText returns the first non-blank line of the reply's text, cut by
// cutLine: that of the first text block that has one.
func firstText(st *transcript.Step) (string, bool) {
	m := st.Message()
	if m == nil {
		return "", false
	}
	for _, b := range m.Message.Content {
		if b.Type != llm.BlockText {
			continue
		}
		if l, cut := cutLine(b.Text, maxText); l != "" {
			return l, cut
		}
	}
	return "", false
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
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	s = s[i:]
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = s[:i], strings.TrimSpace(s[i:]) != ""
	}
	j := len(s)
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\r') {
		j--
	}
	s = s[:j]
	if len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s, cut = s[:i], true
	}
	return s, cut
}
