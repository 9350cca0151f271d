// Package rules holds vigil's zero-token detectors: small rules that
// watch a coding agent's steps and report when it goes off course, without
// asking a model. `vigil review` runs them over recorded sessions; the
// advisor can use them as cheap triggers.
//
// # What they look for
//
// "Off course" follows the advisor's review instructions: repeating a
// failing step, polling work that has finished, working around a blocker
// it could fix, drifting beyond the request, and claiming results the
// tool output does not support. Each detector is one small rule with a
// name, a severity, a paragraph of documentation ([Detectors]) and
// thresholds in [Settings] whose defaults are principled counts (three
// identical failures, edit–revert–re-edit) rather than values fitted to
// particular transcripts:
//
//   - repeated-failure: the same or nearly the same command failing the
//     same way again;
//   - sidestep: an environment blocker (a missing module, an unconfigured
//     framework) hit again and avoided with code that no longer exercises
//     the real thing;
//   - workaround: a failure hidden instead of fixed (|| true, skip
//     markers, a commented-out assertion);
//   - forbidden-edit: editing tests or configuration the instructions put
//     out of bounds;
//   - unsupported-claim: "tests pass" when nothing ran or the last run
//     failed;
//   - fabricated-result: tool output in a reply that no tool returned, an
//     echo in place of the edit it announces, a fix claimed with no file
//     changed;
//   - scope-creep: more changes "for consistency" after the requested fix
//     was verified;
//   - edit-thrash: a file going back and forth between versions, or
//     rewritten again and again unused;
//   - revert-cycle: a restore that throws away the run's own edits, and
//     edit-revert-edit-revert cycles;
//   - edit-failures: edits of one file failing again and again;
//   - test-rerun: the same tests run again with nothing changed;
//   - polling-finished: the same read-only command returning the same
//     output again;
//   - same-result: one program ending the same way run after run,
//     however the command is phrased;
//   - process-churn: the same background job started again and again, or
//     kill after kill;
//   - format-errors: the harness rejecting reply after reply;
//   - no-progress-loop: a stretch of steps that repeat earlier calls with
//     the same results;
//   - repeated-reply: the same reply restated while the agent only waits;
//   - empty-probes: one program called again and again with other
//     arguments, every call returning nothing.
//
// # Signals
//
// Beside findings (precise, shown to users), the engine reports
// [Signal] values: cheap, high-recall reasons for a model advisor to look
// at a step, where something may be going wrong but a verdict needs
// judgment: a test edited right after it failed, a skip marker or an
// always-true assertion, a check turned off by a flag or a setting, many
// edits with nothing run, a success claim, a second identical failure, a
// failure the harness reports in words, a tool that does not exist, a
// turn that ends on announced work ([SignalKinds] lists them). They come
// from the same pass over each step as findings ([Engine.LastSignals]
// after [Engine.Observe]); a signal never reaches the agent by itself.
//
// # Input
//
// Detectors see [transcript.Step] values: one assistant reply with the
// results of its tool calls. Tool calls come in many shapes (vigil's bash,
// Claude Code's Bash, Codex's exec_command, SWE-agent and mini-swe-agent
// actions read as bash; edit, Edit, str_replace_editor, apply_patch,
// write tools); [Actions] reduces each call and its result to an [Action]:
// its kind (shell, read, search, edit, other), command text, path, the
// edits it makes, whether it runs tests, and whether it failed. Failure
// comes from the tool result's error flag or, when that is not set, from
// the exit code the output shows (<returncode>, "[exit code N]", "Exit
// code N"), and for runs whose exit code hides behind a pipe, from a
// trailing traceback or failing test summary.
//
// Shell commands are parsed, not matched: quotes, here-documents,
// pipelines and redirections are understood, so `cat > f.py <<'EOF'` is a
// write of f.py with its content, `sed -i 's/a/b/' f` a replacement in f,
// `cp f.bak f` and `git checkout f` restores, and `cd /repo && python
// x.py 2>&1 | tail -20` the same command as `python x.py`. Commands inside
// if/while/for/case, subshells and `$(…)` are seen where they run (`if
// pytest; then`, `out=$(pytest)`), and `sudo -u x pytest` is a test run: a
// line with compound syntax is read with mvdan.cc/sh's parser, a plain
// line with a faster reader of its own that agrees with it.
//
// # Streaming and memory
//
// An [Engine] takes the steps of one run in order through
// [Engine.Observe] and returns the findings that become reportable at
// each step. Memory is bounded: detectors keep signatures (64-bit hashes
// of normalised commands and outputs) for a window of recent steps
// (Settings.Window, default 40), and file versions for at most a few
// hundred files, never the outputs themselves. Regular expressions are
// compiled once, at first use, and run only on short windows
// around keywords found with strings.Index; long outputs are hashed by
// their first and last 512 bytes, so a step costs about the same whatever
// its size. BenchmarkEngineCorpus measures the engine on real runs.
//
// Each episode is reported once, at the step where it first qualifies
// (its third identical failure, say), with the steps it spans; later
// steps of the same episode stay quiet, and when two detectors see the
// same episode (a test that fails the same way each time it is rerun),
// the first one to report it wins. [Engine.Reset] starts a new run; the
// engine also resets by itself when step numbers start again or the
// agent's context was compacted.
//
// # Concurrency
//
// An Engine is not safe for concurrent use; use one per run. The package
// functions are safe to call from any goroutine.
package rules
