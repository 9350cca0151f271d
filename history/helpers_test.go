package history_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// rendererLine matches every line the renderer writes outside a fence.
var rendererLine = regexp.MustCompile(`^(?:` +
	`|\*\*(?:user|agent)\*\*:` +
	`|## (?:user|assistant)` +
	`|_thinking:_` +
	`|→ [^→⇒]*\([^→⇒]*\) ⇒ (?:pending|ok · \d+ lines?|error · \d+ lines?(?: — [^→⇒]+)?)` +
	`|→ \(result of an earlier call\) ⇒ (?:ok · \d+ lines?|error · \d+ lines?(?: — [^→⇒]+)?)` +
	`|// [^→⇒]+` +
	`|\[image\]` +
	`|\[vigil cut \d+ of the change's \d+ (?:lines|bytes) here\]` +
	`|\[vigil cut \d+ of its (?:\d+ lines here \(\d+ of \d+ bytes\)|\d+ bytes here); the agent (?:saw the whole output|saw it cut too: the whole output is in [^\s\[\]` + "`" + `]+)\]` +
	`|\[[A-Za-z0-9._:-]+\](?: .*)?` +
	`|<primary-context kind="[A-Za-z0-9._:-]+">` +
	`|</primary-context>` +
	`|\(unchanged — still in effect\)` +
	")$")

// openFence matches an opening fence: backticks, and the info string
// "diff" on a change's block.
var openFence = regexp.MustCompile("^(`{3,})(?:diff)?$")

// structureErrors reads out as a CommonMark reader finds its fenced code
// blocks (and the HTML blocks that tag lines open), and reports every line outside them that the renderer does not
// write: a forged heading, label or tag that escaped its fence. In an
// update the first line must be the heading, and no other line outside a
// fence may be one.
func structureErrors(out string, update bool) []string {
	if out == "" {
		return nil
	}
	var errs []string
	if !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
		errs = append(errs, "output does not end in exactly one newline")
	}
	if strings.Contains(out, "\r") {
		errs = append(errs, "output holds a carriage return")
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	fence := 0    // length of the open fence, 0 outside
	html := false // in an HTML block, which a blank line ends
	for i, line := range lines {
		if html {
			switch {
			case line == "":
				html = false
			case openFence.MatchString(line):
				errs = append(errs, "line "+strconv.Itoa(i+1)+": a fence inside an HTML block is no fence")
			case !rendererLine.MatchString(line):
				errs = append(errs, "line "+strconv.Itoa(i+1)+" in an HTML block is not the renderer's: "+line)
			}
			continue
		}
		if fence > 0 {
			// CommonMark: up to three spaces, at least as many backticks
			// as the opening fence, then only blanks.
			t := strings.TrimRight(strings.TrimLeft(line, " "), " \t")
			if len(line)-len(strings.TrimLeft(line, " ")) <= 3 && len(t) >= fence && strings.Trim(t, "`") == "" {
				if len(t) != fence || t != line {
					errs = append(errs, "line "+strconv.Itoa(i+1)+": fence closed by a line the renderer did not write: "+line)
				}
				fence = 0
			}
			continue
		}
		switch {
		case i == 0 && update:
			if line != "### Session update" {
				errs = append(errs, "first line is not the update heading: "+line)
			}
		case i == 0 && !update && strings.HasPrefix(line, "# "):
		case openFence.MatchString(line):
			fence = len(strings.TrimSuffix(line, "diff"))
		case strings.HasPrefix(line, "<"):
			// CommonMark: a line that is a lone tag starts an HTML block.
			html = true
			if !rendererLine.MatchString(line) {
				errs = append(errs, "line "+strconv.Itoa(i+1)+" outside a fence is not the renderer's: "+line)
			}
		case !rendererLine.MatchString(line):
			errs = append(errs, "line "+strconv.Itoa(i+1)+" outside a fence is not the renderer's: "+line)
		}
	}
	if fence > 0 {
		errs = append(errs, "a fence is left open")
	}
	return errs
}

func checkStructure(t testing.TB, out string, update bool) {
	t.Helper()
	for _, e := range structureErrors(out, update) {
		t.Errorf("%s\n--- output:\n%s", e, out)
	}
}

// Entry builders for tests.

func userMsg(text string) session.Entry {
	return session.Entry{Body: &session.Message{Message: llm.UserText(text)}}
}

func agentMsg(blocks ...llm.Block) session.Entry {
	return session.Entry{Body: &session.Message{
		Message:    llm.Message{Role: llm.RoleAssistant, Content: blocks},
		StopReason: llm.StopToolUse,
	}}
}

func result(id string, isError bool, text string) session.Entry {
	return session.Entry{Body: &session.Message{Message: llm.Message{
		Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, isError, llm.Text(text))},
	}}}
}

func call(id, name string, args map[string]any) llm.Block {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return llm.ToolCall(id, name, b)
}

func custom(typ, text string, inContext bool) session.Entry {
	return session.Entry{Body: &session.Custom{
		CustomType: typ, Content: []llm.Block{llm.Text(text)}, Display: true, InContext: inContext,
	}}
}
