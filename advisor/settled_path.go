package advisor

import (
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// SettledPath is path cut before its last reply with tool calls if any
// of them has no result after it: that step is still running. It is where
// a [PeriodicHost.Fork] ends, and a fork of a rendered transcript
// ([ForkTranscript]) renders no more than it.
func SettledPath(path []session.Entry) []session.Entry {
	last := -1
	var calls []llm.Block
	for i, e := range path {
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
			if c := m.Message.ToolCalls(); len(c) > 0 {
				last, calls = i, c
			}
		}
	}
	if last < 0 {
		return path
	}
	answered := map[string]bool{}
	for _, e := range path[last+1:] {
		if m, ok := e.Body.(*session.Message); ok {
			for _, b := range m.Message.Content {
				if b.Type == llm.BlockToolResult {
					answered[b.ID] = true
				}
			}
		}
	}
	for _, c := range calls {
		if !answered[c.ID] {
			return path[:last]
		}
	}
	return path
}
