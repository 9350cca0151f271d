// Package session stores a coding agent's conversation as an append-only
// JSONL file: a header line, then one line per entry. The format is
// documented in docs/session-format.md.
//
// # Entries and the tree
//
// Every [Entry] has an id, the id of its parent and a time; the entries form
// a tree with one root. The session's leaf is where the next entry goes.
// Appending moves the leaf to the new entry; [Session.BranchFrom] moves it
// back to an earlier entry, so the next append starts a branch beside the
// old one, in the same file. Nothing is ever rewritten: an edited prompt, a
// retry or a rewind is a new branch, and the old one stays readable.
//
// An entry's [Body] is a conversation [Message] (an [llm.Message], and for
// replies the model, usage and stop reason), a [Custom] message (plan
// context, an advisor card; flagged for whether the user is shown it and
// whether the model is sent it), a [Compaction] (a summary replacing what
// came before it), a [BranchSummary] (what an abandoned branch did), a
// [ModelChange], or, for types written by a newer vigil, an [Unknown] kept
// as it was read.
//
// [Session.Path] returns what the model sees of a branch: the entries from
// the root to the leaf, with the latest compaction on the way applied.
// [Session.Lineage] returns the same branch uncompacted, [Session.Entries]
// every entry in file order, and [Session.Since] the entries appended after
// a cursor, which is how the advisor reads the transcript in deltas.
//
// # Files
//
// A [Manager] keeps sessions under a root folder, one folder per working
// directory: ROOT/<cwd-slug>/<time>_<id>.jsonl. It creates, resumes (by id,
// by id prefix or by path), continues the latest of a working folder, and
// forks (copies one branch into a new file whose header names its source).
// Every session has an artifacts folder beside its file, named like it
// without .jsonl, for what belongs to the session: the advisor's transcript
// [AdvisorTranscript] and subagent sessions ([Session.NewChild]).
// [Session.Drop] deletes the file and the folder.
//
// # Concurrency
//
// A [*Session] is safe for concurrent use by any number of goroutines.
// Writes (Append, BranchFrom, Sync, Close) are serialised; they take effect
// in the order they acquire the session's write lock. Reads (Leaf, Path,
// Lineage, Entries, Since, Get, Len, Changed) never wait for the disk: they
// see the in-memory state, which an Append updates only after its line was
// written, atomically with respect to readers (a reader sees the new entry,
// the new leaf and the closed Changed channel together, or none of them).
// Returned slices are the caller's; the entries in them are shared and must
// not be modified.
//
// A session file has at most one writer: one [*Session] in one process.
// Two writers to one file would interleave their branches. With
// [Options.Lock], [Open] enforces this with a lock held until Close: a
// second writer, in any process, gets a [*LockedError] naming the holder,
// and can go on in a copy made by [Manager.ForkFile]. Any number of
// processes may read the file with [ReadFile] while it is written,
// without the lock; they may see a partial last line, reported as a
// [*TruncatedError].
//
// To follow a session, take [Session.Changed], read with [Session.Since],
// then wait on the channel (with a context or timeout of your own); the
// channel is closed by the next append or by Close, so no append is missed.
// There is no process-wide state: sessions and managers are independent.
//
// # Durability
//
// Append returns only after the entry's whole line, newline included, was
// handed to the operating system by write(2). An entry that Append
// reported written therefore survives the process being killed at any
// moment, SIGKILL included. Surviving a power loss or kernel crash needs
// the data on disk: with [SyncOnClose] (the default) that is guaranteed for
// everything appended before a [Session.Sync] or [Session.Close] returned;
// with [SyncEveryAppend], for every entry Append returned. A new file is
// created whole: it appears under its name only once its header (and for
// a fork, its copied entries) is synced, and its folder is synced too.
//
// A crash in the middle of a write can leave a partial last line. Readers
// return every entry before it and a [*TruncatedError]; [Open] copies the
// partial line into the artifacts folder and cuts it off the file before
// appending, so the file stays valid JSONL and nothing is lost. A line that
// cannot be read anywhere else is a [*LineError] naming the file and line:
// it is never skipped, and Open refuses such a file rather than append to
// it.
package session
