// Package report renders reviews of recorded sessions ([review.Result])
// for people and programs: a text report for a terminal, with colour when
// asked for and a summary table over several files; JSON Lines, one
// object per input file, whose schema docs/review.md documents; and a
// self-contained HTML page with a timeline of each run and its findings
// marked where they start. It also draws the progress bar `vigil review`
// shows on a terminal while it reads large inputs.
//
// Every output numbers steps the same way: from 1 in the order the run
// happened, one per assistant message with its tool results.
//
// A transcript is input nobody vetted: its commands and their output may
// hold terminal escapes. The text report and the progress bar pass every
// text from it through [Escape], the JSON escapes the same characters, and
// the HTML page escapes it as HTML.
package report
