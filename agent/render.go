package agent

import (
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// summaryPreamble introduces a compaction's summary in a request.
const summaryPreamble = "The conversation so far was compacted. This summary replaces its earlier part:\n"

// summarySystem is the system prompt of a compaction's summary request.
const summarySystem = `You summarise a coding agent's conversation so that the agent can continue the work from your summary alone, without the messages it replaces.

Write a concise, factual summary in markdown with these sections:
## Goal: what the user asked for, in their words where it matters, with every constraint and preference they stated.
## Progress: what was done, with the files read or changed and the commands run, and what they showed.
## Decisions: what was decided and why, including approaches tried and abandoned.
## State: where the work stands now: what is finished, what is broken, what was about to happen next.
## Open: questions, errors not yet fixed, and anything the user still expects.

Keep exact names: paths, functions, commands, error messages, ids. Do not invent anything that is not in the conversation. Do not address the user; write only the summary.`

// maxRenderedBlock bounds the text of one block in a summary request, so a
// huge tool output cannot make the summary itself too long to send.
const maxRenderedBlock = 4000

// summaryPrompt renders entries as the text of a summary request.
func summaryPrompt(entries []session.Entry, instructions string) string {
	var sb strings.Builder
	sb.WriteString("Summarise this conversation between a user and a coding agent.\n\n<conversation>\n")
	esc := false
	for _, e := range entries {
		renderEntry(&sb, e, &esc)
	}
	sb.WriteString("</conversation>\n")
	if instructions = strings.TrimSpace(instructions); instructions != "" {
		sb.WriteString("\nThe user asks the summary to focus on this: ")
		sb.WriteString(escaped(instructions, &esc))
		sb.WriteString("\n")
	}
	if esc {
		sb.WriteString("\n" + escapedNotice + "\n")
	}
	return sb.String()
}

// renderEntry writes one model-visible entry as text for a summary. The
// summariser, too, must be able to tell an advisor's notes from text that
// quotes the tag: everything else has its advisory tags escaped, and esc
// is set when one was.
func renderEntry(sb *strings.Builder, e session.Entry, esc *bool) {
	switch b := e.Body.(type) {
	case *session.Compaction:
		sb.WriteString("[Summary of the conversation before this point]\n")
		sb.WriteString(escaped(clip(b.Summary, 4*maxRenderedBlock), esc))
		sb.WriteString("\n\n")
	case *session.BranchSummary:
		sb.WriteString("[Summary of an abandoned branch]\n")
		sb.WriteString(escaped(clip(b.Summary, maxRenderedBlock), esc))
		sb.WriteString("\n\n")
	case *session.Custom:
		fmt.Fprintf(sb, "[Note: %s]\n", b.CustomType)
		renderBlocks(sb, b.Content, !isAdvisorNote(b), esc)
		sb.WriteString("\n")
	case *session.Message:
		if b.Message.Role == llm.RoleAssistant {
			sb.WriteString("[Agent]\n")
		} else if !onlyToolResults(b.Message.Content) {
			sb.WriteString("[User]\n")
		}
		renderBlocks(sb, b.Message.Content, true, esc)
		sb.WriteString("\n")
	}
}

// renderBlocks writes blocks for a summary, their advisory tags escaped
// when escape is set (and esc set when one was).
func renderBlocks(sb *strings.Builder, blocks []llm.Block, escape bool, esc *bool) {
	text := func(s string) string {
		if escape {
			return escaped(s, esc)
		}
		return s
	}
	for _, bl := range blocks {
		switch bl.Type {
		case llm.BlockText:
			sb.WriteString(text(clip(bl.Text, maxRenderedBlock)))
			sb.WriteString("\n")
		case llm.BlockToolCall:
			fmt.Fprintf(sb, "→ %s %s\n", text(bl.Name), text(clip(string(bl.Arguments), maxRenderedBlock)))
		case llm.BlockToolResult:
			status := "result"
			if bl.IsError {
				status = "error"
			}
			fmt.Fprintf(sb, "[Tool %s]\n", status)
			renderBlocks(sb, bl.Content, escape, esc)
		case llm.BlockImage:
			sb.WriteString("[image]\n")
		}
	}
}

// escaped is s with its advisory tags escaped, without the notice: the
// summary request says what the escape means once, at its end. It sets
// esc when it escaped one. A conversation tag, which would end the
// request's <conversation> element early, is escaped too.
func escaped(s string, esc *bool) string {
	t, changed := neutraliseAdvisories(s)
	*esc = *esc || changed
	t, _ = escapeTag(t, "conversation")
	return t
}

func onlyToolResults(blocks []llm.Block) bool {
	for _, b := range blocks {
		if b.Type != llm.BlockToolResult {
			return false
		}
	}
	return len(blocks) > 0
}

// clip cuts s to about n bytes, keeping its head and tail.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*3/4, n/4
	for head > 0 && !utf8Start(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8Start(s[start]) {
		start++
	}
	return fmt.Sprintf("%s\n[… %d bytes left out …]\n%s", s[:head], start-head, s[start:])
}
