// Package eval measures reviewers of agent runs against a labelled set:
// it reads a labels file, runs a [Reviewer] over each labelled
// transcript, and reports precision, recall, detection delay and false
// flags. `vigil eval` prints its report; the rules engine is the first
// reviewer, and model reviewers plug in through the same interface.
//
// # Labels
//
// A labels file is tab-separated text with a header line
//
//	file	label	onset	note
//
// and one line per run. file is the transcript's path, relative to the
// labels file (gzip-compressed files are read as they are); label is
// offcourse, clean or uncertain; onset is, for offcourse runs only, the
// step where the off-course episode starts (steps count assistant replies
// from 1); note is free text. Blank lines and lines starting with # are
// ignored. A transcript that holds several runs is evaluated on its first.
//
// # Metrics
//
// Findings below Options.MinSeverity are ignored. Tolerance (k, default
// 3) is how many steps a detection may be off the labelled onset, which
// marks where the episode starts, not where it becomes obvious.
//
//   - A finding matches an offcourse run's episode when it ends at or
//     after onset−k: a finding that ended earlier was about something
//     else. The run is detected when some finding matches; its detection
//     step is the earliest EndStep among matching findings (the step at
//     which the reviewer spoke), and its delay is detection step − onset,
//     counted as 0 when negative.
//   - Recall is detected offcourse runs over offcourse runs; recall
//     within k counts only detections with delay ≤ k.
//   - Precision is detected offcourse runs over those plus clean runs
//     with at least one finding (flagged). Offcourse runs flagged only
//     before onset−k count against recall, not precision.
//   - False flags per 50 clean steps is every finding in clean runs,
//     times 50, over the number of steps in clean runs. Findings in
//     offcourse runs that end before onset−k are reported separately as
//     early flags.
//
// # Signals
//
// A reviewer that also reports signals ([SignalReviewer], as
// [RulesReviewer] does) is scored as a gated advisor would use it: a step
// is marked when it has a signal or a counted finding ends at it. An
// offcourse run is alerted when its first marked step at or after
// onset−k is at most k steps after the onset; the report gives the share
// of offcourse runs alerted so, and the share of the steps of clean runs
// that are marked (what a gated advisor would pay for on runs that
// needed nothing), over all runs and per source, and counts each kind of
// signal by run label.
//
// Uncertain runs are reviewed and listed but left out of every metric.
package eval
