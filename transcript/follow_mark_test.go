package transcript

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// entryText is all the text of an entry's message or custom content.
func entryText(e session.Entry) string {
	switch b := e.Body.(type) {
	case *session.Message:
		return b.Message.Text()
	case *session.Custom:
		return llm.Message{Content: b.Content}.Text()
	case *session.Compaction:
		return b.Summary
	}
	return ""
}

// markShapes renders marks one a line: the kind and the entry's shape,
// and for advice the first words of its first note.
func markShapes(r followed) string {
	var b strings.Builder
	for _, m := range r.marks {
		e := r.entries[m.Entry]
		b.WriteString(m.Kind.String() + " " + jlShape(e))
		if m.Kind == MarkAdvice {
			note := strings.SplitN(entryText(e), "\n", 3)
			if len(note) > 1 {
				b.WriteString(": " + strings.Join(strings.Fields(note[1])[:2], " "))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// checkAdvice fails unless the entries that hold advice are exactly those
// marked advice, history.IsAdvice says so of each, and the advisor is
// never shown one.
func checkAdvice(t *testing.T, r followed) {
	t.Helper()
	marked := map[int]bool{}
	for _, m := range r.marks {
		if m.Kind == MarkAdvice {
			marked[m.Entry] = true
		}
	}
	for i, e := range r.entries {
		holds := strings.Contains(entryText(e), "<advisory")
		if holds != marked[i] || holds != history.IsAdvice(e) {
			t.Errorf("entry %d (%s): holds advice %v, marked %v, history.IsAdvice %v", i, jlShape(e), holds, marked[i], history.IsAdvice(e))
		}
		if holds && history.Visible(e) {
			t.Errorf("entry %d (%s): advice the advisor would be shown", i, jlShape(e))
		}
		if c, ok := e.Body.(*session.Custom); ok && holds && !history.IsAdvisories(entryText(e)) {
			t.Errorf("entry %d (%s): content %q is more than the advisory elements", i, c.CustomType, entryText(e))
		}
	}
}

// The recordings with hooks (testdata/follow) show each channel vigil's
// hooks inject through, a compaction and both kinds of interrupt.
func TestFollowMarksClaudeCode(t *testing.T) {
	data := followData(t, "testdata/follow/claude-code.jsonl.gz")
	got, _ := followPieces(t, data, FormatClaudeCode, lineCuts(data), nil)
	want := strings.Join([]string{
		"prompt user: Run ls /nonexistent, then echo",
		// additionalContext: attachment hook_additional_context
		"advice custom advisor:UserPromptSubmit ctx: Say what",
		"advice custom advisor:PostToolUseFailure ctx: The command",
		"advice custom advisor:PostToolUse ctx: Check what",
		"advice custom advisor:PostToolUse ctx: Check what",
		// the Stop block: the "Stop hook feedback:" message, then the
		// hook_blocking_error attachment
		"advice custom advisor:Stop ctx: Before you",
		"advice custom advisor:Stop ctx: Before you",
		// /compact, then SessionStart with source "compact"
		"compaction compaction",
		"advice custom advisor:SessionStart ctx: Standing note:",
		"prompt user: Now run false.",
		"advice custom advisor:UserPromptSubmit ctx: Say what",
		"advice custom advisor:PostToolUseFailure ctx: The command",
		// Ctrl-C while the tool runs
		"prompt user: Run the slow loop.",
		"advice custom advisor:UserPromptSubmit ctx: Say what",
		"interrupt user: [Request interrupted by user f",
		// Ctrl-C while the model answers
		"prompt user: Say something, slowly.",
		"advice custom advisor:UserPromptSubmit ctx: Say what",
		"interrupt user: [Request interrupted by user]",
	}, "\n") + "\n"
	if s := markShapes(got); s != want {
		t.Errorf("marks:\n%s\nwant:\n%s", s, want)
	}
	checkAdvice(t, got)
	// Context other hooks inject (here SessionStart's project note) stays
	// context.
	n := 0
	for _, e := range got.entries {
		if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "attachment:hook_additional_context" {
			n++
			if !strings.Contains(entryText(e), "Project note") || !history.Visible(e) {
				t.Errorf("other hook context %q: visible %v", entryText(e), history.Visible(e))
			}
		}
	}
	if n != 2 {
		t.Errorf("%d other hook contexts, want 2", n)
	}
	// The advice that answered a tool call names it.
	for _, e := range got.entries {
		if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "advisor:PostToolUseFailure" {
			if d := string(c.Details); d != `{"hookName":"PostToolUseFailure:Bash","toolUseID":"toolu_fol_1"}` && d != `{"hookName":"PostToolUseFailure:Bash","toolUseID":"toolu_fol_4"}` {
				t.Errorf("details %s", d)
			}
			if !strings.HasPrefix(entryText(e), `<advisory severity="concern"`) || strings.Count(entryText(e), "</advisory>") != 2 {
				t.Errorf("advice %q, want the two elements the hook returned", entryText(e))
			}
		}
	}
}

func TestFollowMarksCodex(t *testing.T) {
	data := followData(t, "testdata/follow/codex.jsonl.gz")
	got, _ := followPieces(t, data, FormatCodex, lineCuts(data), nil)
	// Codex compacts before most requests (model_auto_compact_token_limit
	// is low); each hook's additional context is a developer message,
	// which does not say which hook wrote it.
	want := strings.Join([]string{
		"prompt user: Run ls /nonexistent, then echo",
		"advice custom advisor:additionalContext ctx: Say what",   // UserPromptSubmit
		"advice custom advisor:additionalContext ctx: Check what", // PostToolUse
		// Codex runs SessionStart hooks (source "compact") after compacting.
		"compaction compaction",
		"advice custom advisor:additionalContext ctx: Standing note:",
		"advice custom advisor:additionalContext ctx: Check what",
		"advice custom advisor:additionalContext ctx: Check what",
		"compaction compaction",
		"advice custom advisor:additionalContext ctx: Standing note:",
		// the Stop block: a user message of <hook_prompt>
		"advice custom advisor:Stop ctx: Before you",
		"compaction compaction",
		"advice custom advisor:additionalContext ctx: Standing note:",
		"prompt user: Now run false.",
		"advice custom advisor:additionalContext ctx: Say what",
		"advice custom advisor:additionalContext ctx: Check what",
		"compaction compaction",
		"advice custom advisor:additionalContext ctx: Standing note:",
		"compaction compaction",
		"advice custom advisor:additionalContext ctx: Standing note:",
		// Ctrl-C while the tool runs
		"prompt user: Run the slow loop.",
		"advice custom advisor:additionalContext ctx: Say what",
		"interrupt custom turn_aborted ctx",
	}, "\n") + "\n"
	if s := markShapes(got); s != want {
		t.Errorf("marks:\n%s\nwant:\n%s", s, want)
	}
	checkAdvice(t, got)
	for _, e := range got.entries {
		if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "advisor:Stop" {
			// The reason comes back unescaped.
			if want := "<advisory severity=\"concern\" guidance=\"weigh, don't blindly obey\">\nBefore you stop: tell the user which command failed and why.\n</advisory>"; entryText(e) != want {
				t.Errorf("Stop advice %q, want %q", entryText(e), want)
			}
		}
	}
}
