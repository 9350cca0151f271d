// Package transcript reads recorded sessions of coding agents (vigil's
// own, Claude Code's session files and its `claude -p --output-format
// stream-json` output, Codex, pi and omp, SWE-agent, mini-swe-agent,
// OpenHands, Aider) into vigil's session entries, and groups entries into
// steps.
//
// # Reading
//
// [NewReader] sniffs the format from the content (the file name is only a
// hint) and [Reader.Items] streams what the file holds: a [RunInfo] when a
// run starts, then that run's entries in the order the run happened. A
// file with several runs (an OpenHands output.jsonl) yields several runs.
// Readers stream: memory holds one line or one JSON element at a time, so
// it does not grow with the file. A line longer than 64 MiB is skipped
// with a note, a longer JSON element is an error, and a gzip stream that
// inflates more than 200 times its size is refused as a decompression
// bomb. [Reader.AdvisorOf] tells an advisor's transcript from a session.
//
// Readers are tolerant. A line of an unknown type, a version they have not
// seen, or a malformed line in the middle of a file is counted in
// [Reader.Notes] and skipped; a truncated last line is noted and the run
// ends before it. Only an I/O error, or content that is not the format at
// all, ends the stream with an error.
//
// Actions that a format records as text (SWE-agent and mini-swe-agent write
// a shell command in the reply and get the output back as the next user
// message) are turned into tool calls and tool results, so that every
// format reaches the detectors in one shape: an assistant message whose
// tool calls are answered by tool results.
//
// # Steps
//
// A [Step] is one assistant message with the tool results that answer it,
// numbered from 1 in the order the run happened. [Stepper] groups a stream
// of entries into steps as they complete, which is what the review
// command, the detectors and a live follower all use.
//
// # Advice vigil injected
//
// When vigil's hooks attach its advisor to Claude Code or Codex, the
// advice they inject (one or more <advisory …>…</advisory> elements)
// comes back in the agent's transcript inside the harness's own wrapper.
// The readers strip the wrapper and read such text as a custom entry of
// type "advisor:CHANNEL" (CHANNEL the hook event, such as PostToolUse or
// Stop, or Codex's additionalContext) holding exactly the advisory
// elements, which history.IsAdvice recognises: the advisor never reviews
// its own advice, and a review never counts it as the user's prompt. Text
// other hooks inject stays context.
//
// # Following a live transcript
//
// [Follow] returns a [Follower] of a Claude Code session or a Codex rollout
// that the agent is still writing. [Follower.Poll] reads the complete
// lines appended since the last call (a line without its newline is left
// for later) and returns a [Batch]: the new entries, the steps they
// complete, and [Mark]s on the entries a caller must react to (a prompt,
// an interrupt, advice, a compaction). [Follower.Settle] says the agent
// ended its turn, which completes the reply the reader holds back in case
// it goes on. The follower drives the whole-file reader's own line
// machine, so each entry and step comes once, the same as reading the
// finished file, with memory bounded by one line and the reader's queue.
// A file that shrinks or is replaced is an error wrapping
// [ErrFileChanged]. The docs folder's follow.md has the details.
package transcript

// The fast path's decoders (jsonfast.go) are generated from the readers'
// struct tags.
//go:generate go run ../internal/jsonfastgen -o jsonfast_gen.go -hint llm.Block.ID=recent -hint llm.Block.Name=recent -hint llm.Block.Arguments=copy ccLine ccBlocks ccProbe cxLine cxItem cxEvent cxUsageRecord cxTurnContext cxCompacted cxProbe cxProbePayload cxTextList miniMessage piLine piBlocks sweItem sweTrajItem flexBlock ohRunHead vigilLine
