// Package tui is vigil's terminal UI: the agent's transcript as it
// streams (markdown replies, folded thinking, tool calls with result
// summaries that expand), the advisor's notes where they land, styled by
// severity, a multi-line editor (history, folded pastes, / and @
// completion), and a status line with the agent's and the advisor's
// model, tokens, cost and context use.
//
// It drives any [App] (the cli package's app is one) with the spec's
// interactive semantics: Enter sends, steers a running turn, Alt+Enter
// queues a follow-up, Esc interrupts without auto-resume, and "." or "c"
// continues a stopped run. Only the blocks on screen are rendered, and
// agent events reach it in batches, so a long session and a fast stream
// cost what one screen costs. docs/tui.md is the user's guide.
package tui
