// Package review runs vigil's zero-token detectors over recorded sessions:
// it streams a transcript file through its reader, groups entries into
// steps and feeds them to a fresh [rules.Engine] per run, and keeps, for
// each run, the findings, the signals (up to [Options].MaxSignals) and a
// bounded [Timeline] of what happened.
//
// # Memory
//
// A review holds one step at a time. What it keeps per step is a summary
// (its number, the tools it called, a short command, whether a call
// failed), and only within limits: every step of a short run, and for a
// long run the steps around its findings plus a compact strip of cells
// that each cover a stretch of steps. Memory therefore stays flat in the
// size of the file; see [Options] for the limits.
//
// # Steps
//
// Steps are numbered from 1 in the order the run happened, one per
// assistant message with the tool results that answer it
// ([transcript.Stepper]); findings, timelines and every output format use
// the same numbers.
//
// # Errors
//
// A path that is no regular file (a named pipe, a device, a socket, a
// loop of symbolic links) is refused before it is opened
// ([ErrNotRegular]), and an advisor's transcript after its header is read
// ([ErrAdvisorTranscript]). A file that is not a known transcript format
// fails before its review starts ([File] returns the reader's error);
// [NotTranscript] tells these apart from a file that could not be read.
// [Inputs] lists every path it can and gives the others their error in
// their place, so that one missing path or unreadable folder does not
// hide the rest. Lines the reader skips (an unknown type, a malformed,
// cut-off or overlong line) are listed in [Result.Notes]. A read error in
// the middle of a file (an I/O error, a corrupt gzip stream, a
// decompression bomb) or the context ending (it is checked at every read)
// ends its review: the result keeps what was found up to there and the
// error in [Result.Err].
package review
