// Package locate finds the recorded sessions of one project, the working
// folder a user runs `vigil review` in, among the session folders of
// every agent vigil reads: vigil's own, Claude Code's, Codex's, pi's and
// omp's. It knows where each agent keeps its sessions and how each names
// a project's folder; it never decodes a session beyond the few opening
// lines that record its working folder.
//
// # Where each agent keeps its sessions
//
//   - vigil: VIGIL_AGENT_DIR (default ~/.vigil/agent) /sessions/<slug>/,
//     listed by [session.Manager.List], which checks each header's cwd.
//     A session vigil keeps for another agent it watched through hooks
//     is left out: that agent's own transcript is found instead.
//   - Claude Code: CLAUDE_CONFIG_DIR (default ~/.claude)
//     /projects/<slug>/<session>.jsonl, where the slug is the absolute
//     path with every character other than an ASCII letter or digit
//     replaced by "-" (a character outside the Basic Multilingual Plane,
//     two UTF-16 units, by "--"); a slug over 200 characters is cut there
//     and ends in a hash, so such folders are matched on those 200.
//     Subagents' files (in a folder named after their session) are not
//     listed.
//   - Codex: CODEX_HOME (default ~/.codex) /sessions/YYYY/MM/DD/rollout-*.jsonl,
//     grouped by date, not project: a file is this project's when the cwd
//     its opening lines record (the session_meta line) is the project.
//   - pi: PI_CODING_AGENT_DIR (default ~/.pi/agent) /sessions/--<path>--/,
//     the path without its leading "/" and with "/", "\" and ":" made "-".
//   - omp: ~/.omp/agent/sessions/<name>/, where name is "-" and the path
//     relative to the home folder, "-tmp-" and the path relative to the
//     temporary folder, or pi's name for any other path ("/" made "-").
//     pi's name is tried for every path.
//
// The project is its folder as given and, when they differ, as its
// symbolic links resolve: an agent may record either (/tmp/p is
// /private/tmp/p on macOS).
//
// Folder names can collide (a/b-c and a-b/c share a slug): a file whose
// opening lines record another working folder is left out. A file that
// records none is kept when its folder is the project's.
//
// # Bounds
//
// Listing reads at most [maxHeadLines] lines and [maxHeadBytes] bytes of a
// file; a folder that cannot be listed or a file that cannot be opened is
// noted in [Found.Errs] and the search goes on.
package locate
