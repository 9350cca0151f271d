// Package stats adds up what recorded vigil sessions used and cost.
//
// # What it reads
//
// [Scan] walks a sessions folder (~/.vigil/agent/sessions, laid out as in
// docs/session-format.md) and reads every .jsonl file in it, artifacts
// folders included, one file at a time. A file belongs to the session whose
// artifacts folder holds it, at any depth: subagent sessions and advisor
// transcripts are attributed to the top-level session that owns them, not
// counted as sessions of their own.
//
// # Roles
//
// Every file has a role. An advisor transcript (__advisor.jsonl, or any file
// whose header's parentSession.kind is "advisor") is [RoleAdvisor]; a
// subagent's session (parent kind "subagent", or any other file in an
// artifacts folder) is [RoleSubagent]; a top-level session is
// [RolePrimary].
//
// # What is counted
//
//   - A turn is an assistant message: one model reply, with the model that
//     wrote it and the tokens the provider reported.
//   - A prompt is a user message of a primary session that holds text and no
//     tool result. Tool results, a subagent's task prompt (written by the
//     parent agent) and whatever starts the advisor's reviews (custom
//     entries written by vigil) are never prompts.
//   - A review is one session update the advisor was sent (advisor_update),
//     or one review prompt of its periodic mode (advisor_review).
//   - Cost prices each turn with its model's price ([Options.Price]); a turn
//     of a model with no price costs 0 and is counted as unpriced.
//   - A fork starts with copies of its source's entries; those are counted
//     once, in the source, and skipped in the fork.
//
// # Damaged files
//
// A file that ends in a partial line (a crash during a write), or has a bad
// line, still counts for the entries before it; a file whose header cannot
// be read counts for nothing. Either way the file is reported as a
// [Problem] and the scan goes on: one damaged file never fails a scan.
//
// Scan holds per file only its totals, never its entries, so memory grows
// with the number of files, not with their length.
package stats
