// Package loopguard stops vigil's agent from repeating itself: a hook that
// watches the steps of a run and, when the same set of tool calls comes
// back N times in a row, interrupts once with a message that says so. It
// judges sameness with the rules the reviewer uses (rules.CallSet) and
// costs no tokens.
package loopguard

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// CustomType is the custom type of the guard's message in the session.
const CustomType = "loop-guard"

// DefaultRepeats is how many steps in a row with the same calls make the
// guard speak, when the setting is not given.
const DefaultRepeats = 5

// Guard is an [agent.Hook]. It is used by one agent's loop, which calls
// Boundary from one goroutine at a time.
type Guard struct {
	repeats int
	last    uint64 // the call set of the last step, 0 for none
	count   int    // steps in a row with it
	spoke   bool   // the guard spoke for this streak
	calls   string // what the streak's calls are, for the message
}

// New returns a guard that speaks at the repeats-th step in a row with the
// same calls; repeats below 2 is [DefaultRepeats].
func New(repeats int) *Guard {
	if repeats < 2 {
		repeats = DefaultRepeats
	}
	return &Guard{repeats: repeats}
}

// Boundary implements [agent.Hook].
func (g *Guard) Boundary(_ context.Context, b agent.BoundaryInfo) []agent.Injection {
	st, ok := step(b.Entries)
	set := uint64(0)
	if ok {
		set = rules.CallSet(&st)
	}
	if set == 0 || set != g.last {
		g.last, g.count, g.spoke = set, 0, false
		if set == 0 {
			return nil
		}
		g.calls = describe(&st)
	}
	g.count++
	if g.count < g.repeats || g.spoke {
		return nil
	}
	g.spoke = true
	text := fmt.Sprintf("[vigil loop guard] The last %d steps made the same calls (%s). Making them again will not "+
		"help: say what their results tell you, then change the approach, or ask the user.", g.count, g.calls)
	return []agent.Injection{{Custom: &session.Custom{
		CustomType: CustomType,
		Content:    []llm.Block{llm.Text(text)},
		Display:    true,
		InContext:  true,
	}}}
}

// step rebuilds the transcript step a boundary's entries hold: the
// assistant message and the results that answer it.
func step(entries []session.Entry) (transcript.Step, bool) {
	var st transcript.Stepper
	var out transcript.Step
	found := false
	for _, e := range entries {
		for _, s := range st.Add(e) {
			out, found = s, true
		}
	}
	if s, ok := st.Flush(); ok {
		out, found = s, true
	}
	return out, found
}

// describe names a step's calls briefly, as the message quotes them.
func describe(st *transcript.Step) string {
	var parts []string
	for _, a := range rules.Actions(st) {
		c := a.Command
		if c == "" {
			c = a.Tool
		}
		if len(c) > 60 {
			i := 57
			for i > 0 && !utf8.RuneStart(c[i]) {
				i--
			}
			c = c[:i] + "…"
		}
		parts = append(parts, "`"+strings.ReplaceAll(c, "`", "'")+"`")
		if len(parts) == 3 {
			break
		}
	}
	return strings.Join(parts, ", ")
}
