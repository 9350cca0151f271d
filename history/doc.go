// Package history renders a coding agent's session entries as the
// markdown an advisor model reads, with secrets redacted first.
//
// The advisor follows the primary agent's session in deltas: the entries
// appended since it last looked. [Renderer.Update] turns one delta (or
// several, concatenated) into one "### Session update" message; [Render]
// renders any list of entries without the heading and without dedupe, for
// a re-prime or a dump.
//
// # What is shown
//
// In watched-role mode ([AdvisorOptions]), a user message is a
// "**user**:" label and its text, an assistant message an "**agent**:"
// label and its body; consecutive messages of one role share one label.
// Without it, each message opens with "## user" or "## assistant". An
// assistant body shows, in its own order, text, thinking (behind a
// "_thinking:_" line, in full, with Options.Thinking) and one line per
// tool call:
//
//	// intent, when the call has an "i" argument (Options.ToolIntent)
//	→ NAME(PRIMARY, key="value", n=3) ⇒ STATUS
//
// PRIMARY is the argument that best says what the call does (the first of
// path, file_path, filePath, command, cmd, pattern, url, query, prompt,
// assignment, note, message, op, name, id that is a non-empty string or
// list of strings; else the first string; else the arguments as compact
// JSON; "{}" for none). With ToolIntent the other arguments follow as
// key=value: short strings quoted, multi-line text by its line count,
// other values as compact JSON. STATUS is "pending" when the result is not
// in the same rendering, "ok · N lines", or "error · N lines — FIRST
// LINE". With Options.MaxToolOutput the result's text follows the line; a
// longer one keeps its head (two fifths of the budget) and tail (three
// fifths), cut at line breaks, around "[vigil cut N of its L lines here (M of B bytes);
// the agent saw the whole output]" (or, when the bash tool had cut it
// for the agent too, "the agent saw it cut too: the whole output is in
// PATH"). A
// result whose call was in an earlier delta gets a line of its own,
// "→ (result of an earlier call) ⇒ STATUS".
//
// STATUS says "error" when the result's error flag is set (the transcript
// readers set it from what the harness recorded) and also when the
// harness said so only in the text: a result that opens with Codex's
// "failed in sandbox" or "execution error:", a declined approval (a
// first line that ends "rejected by user", as Codex writes it, or Claude
// Code's "The user doesn't want to proceed with this tool use"), an exit code other than 0 in the marker a harness
// writes at the start of a line near either end of the output ("Exit
// code: N", "Process exited with code N", "[exit code N]",
// "<returncode>N", "Command exited with code N", OpenHands' "[The command
// completed with exit code N"), "permission denied" on the first or last
// line, or, for an edit, an editor saying it applied nothing ("No
// replacement was performed", "Failed to find expected lines", …).
//
// # Changes
//
// With Options.MaxEditLines, an edit, write or patch call is followed by
// the change it makes, in a fenced block whose info string is "diff":
//
//	→ Edit(calc.py) ⇒ ok · 1 line
//	```diff
//	@@
//	 def add(a, b):
//	-    return a - b
//	+    return a + b
//	```
//
// The shapes read are: a replacement, {old, new} under the names vigil
// and Aider (old_text, new_text), Claude Code (old_string, new_string), pi
// and omp (oldText, newText) and str_replace_editor (old_str, new_str)
// use, compared line by line with three lines of context, each hunk
// opened by a bare "@@" (the snippet's line numbers are not the file's);
// a list of them under "edits" (Claude Code's MultiEdit, pi's edit, the
// edits the pi reader resolves from an omp hashline patch); a write (the
// write, Write, write_file and create_file tools' content, and
// str_replace_editor's create, and Claude Code's NotebookEdit's new cell
// source), whose text shows as added lines; an
// insertion (str_replace_editor's insert, under "@@ -N,0 +N+1 @@"); a
// Codex patch ("*** Begin Patch" … "*** End Patch") as the apply_patch
// tool's input or inside any command (a shell call's list, a here-document
// given to apply_patch), shown as written without its envelope; and
// SWE-agent's str_replace_editor given as a shell command line
// (str_replace, create, insert), whose quoted words are read as a shell
// would; and a file a command writes from a here-document with cat or tee
// (cat > PATH <<'EOF', cat <<EOF >> PATH, tee -a PATH <<EOF, in a
// "command" or "cmd" argument, as bash reads it), shown as "+++ PATH"
// ("+++ PATH (appended)" for >> and tee -a) and the body as added lines.
// The arguments the change shows are left off the tool line; in a
// command, a patch reads "‹patch›" there and a here-document's body
// "‹N lines›", and the apply_patch tool's line names the files its patch
// touches. Old and new text are redacted
// before they are compared, and the diff once more after.
//
// A change longer than MaxEditLines lines keeps its first half and its
// last half around "[vigil cut N of the change's L lines here]" (so a
// written file shows its head and tail), and one longer than
// MaxEditLines × [MaxEditLineBytes] bytes is cut to that many
// ("[vigil cut M of the change's B bytes here]" when a line itself was
// cut). A replacement of more than 1 MiB is shown as its old lines removed
// and its new lines added, without comparing them, to bound the time.
// [Change] gives one call's change the same way, without the fence, for
// `vigil review`'s reports.
//
// Custom entries the model is sent are one-liners, "[TYPE] text"
// (the agent's "[aborted] [Interrupted by user]", "[resume] …"), except
// primary context (plan mode's context and reference, and what the caller
// passes in Options.Context), which with Options.ExpandPrimaryContext is
// shown in full:
//
//	<primary-context kind="plan-mode-context">
//
//	```
//	the plan
//	```
//	</primary-context>
//
// A Renderer remembers a hash of the last text shown for each kind; when
// the same kind comes again with the same text, the element holds
// "(unchanged — still in effect)" instead. Compaction and branch summaries
// are a "[compaction] …:" or "[branch] from ID:" line and the summary in
// full; a model change is "[model] provider/model · thinking LEVEL".
//
// One-liners are cut to 120 characters ("…" marks the cut), intent lines
// to 80. Text, thinking and summaries are never cut; tool output is cut
// only by MaxToolOutput.
//
// # Escaping
//
// The advisor must be able to tell the renderer's structure from what the
// agent, its tools or its user wrote: a tool output that prints "###
// Session update", a fake "**user**:" label or "</advisory>" must not read
// as such. Two rules make that so:
//
//  1. Text that may span lines (messages, thinking, tool output,
//     summaries, primary context) is always written as a fenced code
//     block whose fence is a run of backticks one longer than the longest
//     run inside the text (at least three). No line of the text can close
//     the fence, so under CommonMark rules everything in it is literal. Line
//     endings are normalised first (a lone "\r" ends a line for a markdown
//     reader) and invalid UTF-8 is replaced.
//  2. Text placed on one of the renderer's own lines (a tool's name and
//     arguments, an intent, an error's first line, a custom entry's
//     one-liner, an id) has every run of white space, line breaks
//     included, collapsed to one space and is bounded in length, so it can
//     never start a line; the arrows "→" and "⇒" in it become "->" and
//     "=>", so it cannot fake a tool line's status. Custom types and
//     context kinds keep only letters, digits and "._:-".
//
// Hence every line outside a fence is the renderer's own: a heading, a
// label, a tool or intent line, a bracketed note, a <primary-context>
// tag, the unchanged marker or a cut marker. (A change's fence carries
// the info string "diff", which is the renderer's, never foreign text.) (A blank line follows the
// opening tag because, to a markdown reader, a tag line opens an HTML
// block that only a blank line ends, and a fence inside it would be no
// fence.) The tests read every output as CommonMark does and check this. [Legend] says so to the
// model, for the advisor's system prompt. Fences were chosen over quoting
// each line ("> "), because a fence costs two lines per block rather than
// two bytes per line, and keeps code and output verbatim.
//
// # What is left out
//
// [Visible] decides, and both Render and Update apply it: the advisor's
// own advice ([IsAdvice]: custom type "advisor", or text that is nothing
// but <advisory> elements), the unfinished reply of an aborted or failed
// step (stop reason "aborted" or "error"), custom entries the model is not
// sent (the agent's "error" record, notices for the user), unknown entry
// types, redacted thinking, and thinking unless asked for.
//
// # Secrets
//
// A [Redactor], built once from the environment and the configuration's
// secret values, is applied to every string before it is rendered
// (thinking included, and the decoded strings of tool arguments, so JSON
// escapes cannot hide a secret). It replaces known values, key shapes and
// secret-looking assignments with "[REDACTED:NAME]"; see [Redactor] for
// what it finds and what it leaves, and [MinSecretLength].
//
// # Differences from omp
//
// The rendering follows omp's formatSessionHistoryMarkdown, with these
// changes: text is fenced rather than inline (escaping, above); tool
// output can be shown (omp shows only the status); an edit's change is
// shown as a diff, cut at 300 lines as omp cuts its diffs (omp shows the
// call's arguments); ToolIntent also shows
// the secondary arguments; compaction and branch summaries are shown in
// full; a model change is shown; thinking is redacted like everything
// else (omp does not redact it); one update message carries one heading
// however many deltas it coalesces (omp joins their messages); and
// runtime-supplied context (Options.Context) is expanded and deduped like
// plan context.
//
// # Concurrency
//
// Render, Visible, IsAdvice and a Redactor's methods are safe for
// concurrent use. A [Renderer] serialises its updates with a lock. The
// package holds no state of its own beyond immutable tables of patterns.
package history
