// Package sidecar attaches vigil's advisor to an agent vigil does not run
// (Claude Code, Codex) through that agent's hooks.
//
// Hooks are synchronous: the agent waits for each one, so no model work
// can happen inside a hook. One small background process per watched
// session, the sidecar, follows the agent's transcript file as it grows
// ([transcript.Follower]), feeds each completed step to the advisor
// runtime, and holds the advice the runtime produced. The hook command
// (package internal/hook) is a fast client: it forwards each hook event
// to the sidecar over a unix socket only the user can open, and prints
// what the sidecar answers:
//
//   - PostToolUse, PostToolUseFailure: the pending notes, asides and
//     interrupting ones alike, as additionalContext (the step boundary);
//   - Stop: a block with the interrupting note as its reason, so the agent
//     takes one more turn, when one is pending or arrives within the wait;
//     never when stop_hook_active is set or the user interrupted;
//   - UserPromptSubmit: clears the interrupt latch and hands over the
//     cards (notes kept for the user's next prompt);
//   - SessionStart after a compaction, resume or clear, and a compaction
//     seen in the transcript: resets the advisor, as in the built-in agent;
//   - SessionEnd: stops the sidecar.
//
// Besides the hooks, the sidecar answers the agent's questions to its
// advisor (POST /consult, from `vigil mcp`'s ask_advisor tool:
// consult.go); [Dir.ForAgent] finds the sidecar of an agent's process and
// [Ask] asks it.
//
// [Host] is the [advisor.Host] over the followed transcript; [Sidecar]
// answers the hook events (sidecar.go, served by [Sidecar.Handler] in
// server.go) and reads the transcript through its follower (read.go);
// what it does when the transcript cannot be read (each condition logged
// once, a replaced file followed anew, a removed one given up on) is in
// trouble.go; [PeriodicHost] adds the periodic mode (periodic.go); the
// paths and the registry of live sidecars are in paths.go, and
// [LogText], which keeps what an event holds from forging log lines, in
// logline.go. [SpawnDetached] starts a background vigil (a sidecar, the
// HTTP hooks' server) in a session of its own and waits for the byte it
// writes on its [ReadyPipe] once it serves (spawn.go).
//
// Hook events are input from outside: [ParseInput] refuses what no agent
// sends (invalid UTF-8, control characters in ids and paths), the
// follower opens only a regular file, a transcript on the kernel's file
// systems (/proc, /sys) is refused, and every wait is bounded: a
// hostile event gets an empty answer, promptly.
package sidecar
