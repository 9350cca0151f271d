// Package tools holds the tools a coding agent calls to look at and change a
// workspace: read, write, edit, bash, grep and find, and a read-only set of
// them for the advisor.
//
// # Tools and calls
//
// A [Tool] has a [Tool.Definition] (name, description, JSON schema of its
// arguments) that goes into a model request, and a [Tool.Run] that performs
// one [Call]. A call's arguments are checked against the schema before
// anything happens: a missing required argument, a value of the wrong type,
// an unknown argument or a value out of range is an error naming the tool
// and the argument. A [Result] holds the content blocks the model sees
// (text, and images from read), an IsError flag, and [Details] for user
// interfaces: a diff, an exit code, whether output was truncated, where the
// full output went. [Invoke] runs the call a model made against a set of
// tools and always returns a result to send back.
//
// # Sessions
//
// Tools come from a [Session], made by [NewSession] from [Options]. The
// session holds the roots the tools may touch, the working folder, the
// limits, and what the tools remember between calls: for each file read,
// its content hash and which lines were shown. Edit and write use that to
// warn when a file is changed that was never read in the session, that
// changed on disk since it was read, or (for edit) whose replaced lines were
// never shown. Warnings are added to the result; they never block a change.
// Sessions share nothing, so one process can host many agents.
//
// [Session.Tools] returns the agent's six tools; [Session.ReadOnlyTools] and
// [NewReadOnly] return read, grep (named "search") and find, which cannot
// change anything. Bash is never in the read-only set: a shell command
// cannot be confined by path checks.
//
// # Paths
//
// Relative paths resolve against the working folder. Every path is made
// absolute and its symlinks are resolved (also those in a part that does
// not exist yet, and a dangling last link) before it is checked against the
// roots; tools then use the resolved path, so what was checked is what is
// touched. A path outside every root is refused with an error that lists the
// roots, unless Options.AllowOutsideRoots is set. The one exception: read
// may open the output files bash saved in this session. The check does not
// defend against another process swapping a folder for a symlink between
// the check and the use.
//
// grep and find walk folders in sorted order, skip version-control folders
// (.git, .hg, .svn, .jj), honour .gitignore files (those of the folders
// above the search folder too, up to the repository's top) and
// .git/info/exclude, and never follow symlinks; grep also skips binary
// files and symlinked files.
//
// # Limits
//
// Output is capped at Options.MaxLines lines and Options.MaxBytes bytes
// (2000 and 50 KiB by default). read keeps the head and says which offset
// continues; bash keeps the tail, says how much it dropped, and saves the
// whole output to a file in Options.ArtifactsDir; grep and find stop and
// say how many more there were.
//
// # bash
//
// bash runs Shell -c COMMAND in the working folder, in a process group of
// its own, with stdin empty and stdout and stderr on one pipe. On timeout or
// when the call's context is cancelled, the whole group gets SIGTERM and,
// after Options.KillGrace or as soon as the shell exits, SIGKILL; Run
// returns once the shell is reaped. Processes that leave the group (setsid)
// escape this. Once the shell exits, its output is read until the pipe
// closes or a second passes, so a background process that keeps the pipe
// open does not hold the call.
//
// # Concurrency
//
// A Session and its tools are safe for concurrent use. Run spawns
// goroutines only in bash (one reading output, one waiting for the shell),
// and they end before Run returns, except the waiter of a shell that did not
// die even after SIGKILL.
package tools
