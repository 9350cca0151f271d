// Package contextfiles finds the instruction files a user writes for agents
// (AGENTS.md for the coding agent, WATCHDOG.md for the advisor) and expands
// the @path imports inside them.
//
// # Discovery
//
// [Discover] looks in two places, and returns what it finds from the most
// general file to the most specific:
//
//  1. the user's agent folder (~/.vigil/agent, or wherever VIGIL_AGENT_DIR
//     points; the caller passes it in [Options.AgentDir]);
//  2. every folder from the project root down to the working folder. The
//     project root is the nearest folder at or above the working folder that
//     holds a .git entry (a folder, or the file a worktree or submodule has);
//     with none, the working folder alone is the project.
//
// Which file names are looked for is the caller's choice, through [Names]:
// [AgentsNames] for AGENTS.md, [WatchdogNames] for WATCHDOG.md, where a
// project folder's WATCHDOG.md comes before its .vigil/WATCHDOG.md. Every file
// found is read; none hides another. A missing file is skipped silently; one
// that cannot be read, is not a regular file (a named pipe, a device, a
// folder, a loop of symbolic links) or is larger than [MaxFileBytes] is
// skipped and reported through [Options.Logf], without waiting on it. So is
// a project's file that is a symbolic link out of the project and the
// working folder (AGENTS.md linked to ~/private.txt): a project's files are
// confined as its imports are; the user's own, in the agent folder, are
// not. Bytes
// that are not UTF-8 are read as U+FFFD, and reported too. The same file
// reached twice (a symbolic link, or an agent folder inside the project) is
// read once, at its first place.
//
// # Imports
//
// A file may pull in another with @path, at the start of a line or after a
// space or tab: "@docs/style.md", "see @~/notes/go.md for details". The
// token runs to the next white space; trailing punctuation (.,;:!?)]}"') is
// not part of it, so "see @a.md." imports a.md. [ExpandImports] replaces each
// token with the imported file's content, itself expanded, with its trailing
// line breaks removed. Paths are relative to the importing file's folder;
// "~/" starts at the home folder; absolute paths are taken as they are.
//
// Some tokens are left exactly as written, and [File.Imports] says why
// ([ImportStatus]):
//
//   - inside fenced code blocks (``` or ~~~) and inline code spans, nothing is
//     an import, so examples in code stay literal (these are not reported);
//   - a file that does not exist, is not a regular file, or cannot be read
//     ([Missing]);
//   - a file outside the allowed roots, after following symbolic links
//     ([Outside]): [Discover] lets the user's own files (in the agent
//     folder) import from the project, the home folder and the agent folder,
//     and a project's files import only from the project, so a cloned
//     repository cannot pull "@~/.aws/credentials" into a prompt, and
//     "@/etc/hosts" or "@../../elsewhere.md" stays text;
//   - a file already being expanded further up the chain: a cycle ([Cycle]);
//   - a file imported earlier in the same top-level file: each file is
//     included at most once per top-level file, which keeps a shared snippet
//     imported from several places from being repeated ([Repeated]);
//   - a token in a file more than [DefaultMaxImportDepth] imports deep
//     ([TooDeep]);
//   - a file larger than [MaxFileBytes], one that would bring the imported
//     text past [MaxExpandedBytes], or a token past the first [MaxImports]
//     of a top-level file ([OverLimit]), so that a repository cannot make
//     one file of a thousand imports into a prompt of gigabytes.
//
// Tokens that look like e-mail addresses (a@b.c) or git@host are not imports
// because no space precedes the @.
//
// # Differences from omp
//
// The walk goes from the git root down to the working folder, never above the
// root, so omp's rule that skips files in hidden folders (meant for ~/.config
// and the like on the way up to the home folder) is not needed and not
// applied. Indented (four-space) code blocks and code spans that cross lines
// are not recognised as code. Files are read afresh on every call; nothing is
// cached between calls.
//
// # Rendering
//
// [Render] joins the files for a system prompt, each in a
// <context-file path="..."> element. The advisor wraps WATCHDOG.md in its own
// <attention> blocks from the same [File] values.
//
// The package holds no state between calls and is safe for concurrent use.
package contextfiles
