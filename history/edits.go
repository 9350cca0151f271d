package history

// How an edit, write or patch call is shown: as the change it makes.

import (
	"encoding/json"
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// A change is what an edit, write or patch call does to files, as the
// renderer shows it under the call's tool line.
type change struct {
	// diff is the change as lines of a unified diff, redacted, without a
	// final newline; "" when the call changes nothing it can show.
	diff string
	// shown are the arguments the diff shows, which the tool line leaves
	// out.
	shown map[string]bool
	// primary, when set, is what the tool line shows as the primary
	// argument: the files a patch names, when the patch was the call's
	// only argument.
	primary string
}

// Argument names of the text an edit replaces and its replacement, as
// the agents spell them: vigil's and Aider's, Claude Code's, pi's and
// omp's, str_replace_editor's.
var (
	oldKeys = []string{"old_text", "old_string", "oldText", "old_str"}
	newKeys = []string{"new_text", "new_string", "newText", "new_str"}
)

// writeTools are the tools whose "content" (or "file_text") is a file's
// whole new text.
var writeTools = map[string]bool{"write": true, "write_file": true, "create_file": true}

// editorTools take a "command" naming what to do with a file: OpenHands'
// and SWE-agent's str_replace_editor, Anthropic's text editor tool.
var editorTools = map[string]bool{"str_replace_editor": true, "str_replace_based_edit_tool": true, "text_editor": true, "editor": true}

// Codex's patch envelope.
const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
)

// changeOf returns the change a call makes, when it is an edit, a write or
// a patch of one of the shapes the agents use (see the package
// documentation). Only MaxEditLines > 0 shows changes.
func (w *writer) changeOf(tool string, args []arg) change {
	if w.opts.MaxEditLines <= 0 {
		return change{}
	}
	var c change
	var lines []string
	show := func(keys ...string) {
		if c.shown == nil {
			c.shown = map[string]bool{}
		}
		for _, k := range keys {
			c.shown[k] = true
		}
	}
	name := strings.ToLower(tool)
	command, _ := stringArg(args, "command")
	switch {
	case hasArg(args, "edits"):
		raw, _ := rawArg(args, "edits")
		var edits []map[string]json.RawMessage
		if json.Unmarshal(raw, &edits) != nil {
			break
		}
		for _, e := range edits {
			old, _ := firstString(e, oldKeys)
			repl, ok := firstString(e, newKeys)
			if ok {
				lines = append(lines, w.replacement(old, repl)...)
			}
		}
		show("edits")
		if _, ok := stringArg(args, "input"); ok {
			show("input") // omp's hashline patch, which the edits resolve
		}
	case editorTools[name] && command == "create":
		text, _ := stringArg(args, "file_text")
		lines = w.added(text)
		show("file_text")
	case editorTools[name] && command == "insert":
		text, _ := stringArg(args, "new_str")
		lines = w.inserted(args, text)
		show("new_str")
	case editorTools[name] && command == "str_replace":
		// new_str left out replaces with nothing.
		old, _ := stringArg(args, "old_str")
		repl, _ := stringArg(args, "new_str")
		lines = w.replacement(old, repl)
		show("old_str", "new_str")
	case name == "notebookedit" && hasArg(args, "new_source"):
		// Claude Code's: a cell's new source.
		text, _ := stringArg(args, "new_source")
		lines = w.added(text)
		show("new_source")
	case hasAnyString(args, newKeys):
		old, _ := firstStringArg(args, oldKeys)
		repl, _ := firstStringArg(args, newKeys)
		lines = w.replacement(old, repl)
		show(oldKeys...)
		show(newKeys...)
	case writeTools[name] && (hasArg(args, "content") || hasArg(args, "file_text")):
		text, ok := stringArg(args, "content")
		if !ok {
			text, _ = stringArg(args, "file_text")
		}
		lines = w.added(text)
		show("content", "file_text")
	default:
		for _, a := range args {
			s, ok := stringValue(a.raw)
			if !ok {
				s, ok = stringsValue(a.raw)
			}
			if !ok {
				continue
			}
			if patch, whole := patchIn(s, name == "apply_patch"); patch != "" {
				lines = w.patch(patch)
				if whole {
					show(a.key)
					c.primary = patchFiles(w.redact(patch))
				}
				break
			}
			if a.key == "command" || a.key == "cmd" {
				if l, ok := w.shellEditor(s); ok {
					lines = l
					break
				}
				if l := w.heredocChanges(a.raw); len(l) > 0 {
					lines = l
					break
				}
			}
		}
	}
	if len(lines) > 0 {
		c.diff = w.opts.Redactor.Redact(strings.Join(lines, "\n"))
	}
	return c
}

// replacement returns the diff of a replacement: hunks of changed lines
// and up to three unchanged lines around them, each opened by a bare "@@"
// (the line numbers are the snippet's, not the file's, so none are shown).
// old and new are redacted before they are compared.
func (w *writer) replacement(old, repl string) []string {
	old, repl = w.redact(old), w.redact(repl)
	if old == repl {
		return nil
	}
	if old != "" && !strings.HasSuffix(old, "\n") {
		old += "\n"
	}
	if repl != "" && !strings.HasSuffix(repl, "\n") {
		repl += "\n"
	}
	var lines []string
	if len(old)+len(repl) > maxDiffInput {
		// Too big to compare in bounded time: the old text out, the new in.
		lines = append(lines, "@@")
		lines = appendPrefixed(lines, "-", old)
		return appendPrefixed(lines, "+", repl)
	}
	u, err := udiff.ToUnifiedDiff("", "", old, udiff.Lines(old, repl), udiff.DefaultContextLines)
	if err != nil { // cannot happen: the edits are the library's own
		lines = append(lines, "@@")
		lines = appendPrefixed(lines, "-", old)
		return appendPrefixed(lines, "+", repl)
	}
	for _, h := range u.Hunks {
		lines = append(lines, "@@")
		for _, l := range h.Lines {
			text := strings.TrimSuffix(l.Content, "\n")
			switch l.Kind {
			case udiff.Delete:
				lines = append(lines, "-"+text)
			case udiff.Insert:
				lines = append(lines, "+"+text)
			default:
				lines = append(lines, " "+text)
			}
		}
	}
	return lines
}

// maxDiffInput bounds the text a replacement compares line by line.
const maxDiffInput = 1 << 20

// added returns a new file's text as added lines.
func (w *writer) added(text string) []string {
	return appendPrefixed(nil, "+", w.redact(text))
}

// inserted returns str_replace_editor's insertion of text after line
// insert_line, under the hunk header a unified diff gives it.
func (w *writer) inserted(args []arg, text string) []string {
	body := appendPrefixed(nil, "+", w.redact(text))
	raw, _ := rawArg(args, "insert_line")
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 || len(body) == 0 {
		return append([]string{"@@"}, body...)
	}
	to := strconv.Itoa(n + 1)
	if len(body) > 1 {
		to += "," + strconv.Itoa(len(body))
	}
	return append([]string{"@@ -" + strconv.Itoa(n) + ",0 +" + to + " @@"}, body...)
}

// patch returns a Codex patch's lines without its envelope.
func (w *writer) patch(p string) []string {
	p = w.redact(p)
	p = strings.TrimPrefix(strings.TrimPrefix(p, beginPatch), "\n")
	if i := strings.LastIndex(p, endPatch); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimRight(p, "\n")
	if p == "" {
		return nil
	}
	return strings.Split(p, "\n")
}

// patchIn returns the Codex patch s holds, from "*** Begin Patch" to
// "*** End Patch" (or the end of s), and whether s is nothing else. For
// the apply_patch tool (tool true) s is the patch even without its
// envelope.
func patchIn(s string, tool bool) (patch string, whole bool) {
	i := strings.Index(s, beginPatch)
	if i < 0 {
		if tool && !blank(s) {
			return s, true
		}
		return "", false
	}
	end := len(s)
	if j := strings.Index(s[i:], endPatch); j >= 0 {
		end = i + j + len(endPatch)
	}
	return s[i:end], blank(s[:i]) && blank(s[end:])
}

// elidePatches replaces each Codex patch in a command with "‹patch›": the
// change is shown under the tool line.
func elidePatches(s string) string {
	for {
		p, _ := patchIn(s, false)
		if p == "" {
			return s
		}
		i := strings.Index(s, p)
		s = s[:i] + "‹patch›" + s[i+len(p):]
	}
}

// patchFiles lists the files a patch names, joined with ", ".
func patchFiles(p string) string {
	var files []string
	for line := range strings.SplitSeq(p, "\n") {
		for _, op := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(line, op); ok {
				files = append(files, strings.TrimSpace(f))
			}
		}
	}
	return strings.Join(files, ", ")
}

// shellEditor reads a str_replace_editor command given as a shell command
// line (SWE-agent): str_replace, create and insert.
func (w *writer) shellEditor(command string) ([]string, bool) {
	if !strings.HasPrefix(strings.TrimSpace(command), "str_replace_editor ") {
		return nil, false
	}
	words, ok := shellWords(command)
	if !ok || len(words) < 3 {
		return nil, false
	}
	flag := func(name string) (string, bool) {
		for i := 3; i < len(words)-1; i++ {
			if words[i] == name {
				return words[i+1], true
			}
		}
		return "", false
	}
	switch words[1] {
	case "str_replace":
		old, _ := flag("--old_str")
		repl, ok := flag("--new_str")
		if !ok {
			return nil, false
		}
		return w.replacement(old, repl), true
	case "create":
		text, ok := flag("--file_text")
		return w.added(text), ok
	case "insert":
		text, ok := flag("--new_str")
		n, _ := flag("--insert_line")
		raw, _ := json.Marshal(n)
		if _, err := strconv.Atoi(n); err == nil {
			raw = []byte(n)
		}
		return w.inserted([]arg{{"insert_line", raw}}, text), ok
	}
	return nil, false
}

// shellWords splits a command line into words as a POSIX shell would
// quote them: single quotes, double quotes (where a backslash escapes $,
// `, ", \ and a newline), and backslashes outside quotes. It reports false
// for an unterminated quote. Expansions are not performed.
func shellWords(s string) ([]string, bool) {
	var words []string
	var word strings.Builder
	in := false // a word is open
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, word.String())
				word.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			word.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				word.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, false
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				word.WriteByte(s[i])
				in = true
			}
		default:
			word.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, word.String())
	}
	return words, true
}

// heredocChanges returns the files a command (a string, or a list of
// arguments such as Codex's ["bash", "-lc", SCRIPT]) writes from
// here-documents.
func (w *writer) heredocChanges(raw json.RawMessage) []string {
	if s, ok := stringValue(raw); ok {
		return w.heredocChange(s)
	}
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var lines []string
	for _, s := range list {
		lines = append(lines, w.heredocChange(s)...)
	}
	return lines
}

// appendPrefixed appends each line of text with prefix before it.
func appendPrefixed(lines []string, prefix, text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return lines
	}
	for l := range strings.SplitSeq(text, "\n") {
		lines = append(lines, prefix+l)
	}
	return lines
}

func hasArg(args []arg, key string) bool {
	_, ok := rawArg(args, key)
	return ok
}

func rawArg(args []arg, key string) (json.RawMessage, bool) {
	for _, a := range args {
		if a.key == key {
			return a.raw, true
		}
	}
	return nil, false
}

func hasAnyString(args []arg, keys []string) bool {
	_, ok := firstStringArg(args, keys)
	return ok
}

// firstStringArg returns the first of keys that is a string argument.
func firstStringArg(args []arg, keys []string) (string, bool) {
	for _, k := range keys {
		if s, ok := stringArg(args, k); ok {
			return s, true
		}
	}
	return "", false
}

// firstString returns the first of keys that is a string in an object.
func firstString(obj map[string]json.RawMessage, keys []string) (string, bool) {
	for _, k := range keys {
		if raw, ok := obj[k]; ok {
			if s, ok := stringValue(raw); ok {
				return s, true
			}
		}
	}
	return "", false
}

// writeChange writes a change's diff under its tool line, as a fenced
// "diff" block, cut by [cutChange]: the head and the tail around a marker
// that says how many lines (or, when a line itself was cut, bytes) vigil
// left out.
func (w *writer) writeChange(diff string) {
	head, marker, tail := cutChange(diff, w.opts.MaxEditLines)
	if head != "" {
		writeFenceInfo(&w.sb, head, "diff")
	}
	if marker != "" {
		w.line(marker)
	}
	if tail != "" {
		writeFenceInfo(&w.sb, tail, "diff")
	}
}

// cutChange cuts a change's diff to maxLines lines and maxLines ×
// MaxEditLineBytes bytes: a diff within both is its head alone; a longer
// one keeps its head and its tail, around a marker saying what was left
// out ("[vigil cut N of the change's L lines here]", or "… B bytes here]"
// when a line itself was cut).
func cutChange(diff string, maxLines int) (head, marker, tail string) {
	if diff == "" {
		return "", "", ""
	}
	maxBytes := maxLines * MaxEditLineBytes
	total := lineCount(diff)
	if total <= maxLines && len(diff) <= maxBytes {
		return diff, "", ""
	}
	// head is diff[:h] and tail diff[t:], each at a line break where the
	// cut is by lines.
	h, t := len(diff)/2, len(diff)/2
	if total > maxLines {
		h = nthLineEnd(diff, maxLines/2)
		t = lastLinesStart(diff, maxLines-maxLines/2)
	}
	if h > maxBytes/2 {
		h = cutAt(diff[:h], maxBytes/2, false)
	}
	if budget := maxBytes - maxBytes/2; len(diff)-t > budget {
		t += cutAt(diff[t:], len(diff)-t-budget, true)
	}
	head, tail = diff[:h], diff[t:]
	whole := (h == 0 || diff[h] == '\n') && (t == len(diff) || diff[t-1] == '\n')
	if whole {
		head = strings.TrimSuffix(head, "\n")
		lines := total - lineCount(head) - lineCount(tail)
		marker = "[vigil cut " + strconv.Itoa(lines) + " of the change's " + strconv.Itoa(total) + " lines here]"
	} else {
		marker = "[vigil cut " + strconv.Itoa(t-h) + " of the change's " + strconv.Itoa(len(diff)) + " bytes here]"
	}
	return head, marker, tail
}

// nthLineEnd returns where the nth line of s ends (the index of its line
// break); len(s) when s has fewer lines.
func nthLineEnd(s string, n int) int {
	at := 0
	for range n {
		i := strings.IndexByte(s[at:], '\n')
		if i < 0 {
			return len(s)
		}
		at += i + 1
	}
	return max(at-1, 0)
}

// lastLinesStart returns where the last n lines of s start.
func lastLinesStart(s string, n int) int {
	at := len(s)
	for range n {
		i := strings.LastIndexByte(s[:at], '\n')
		if i < 0 {
			return 0
		}
		at = i
	}
	return min(at+1, len(s))
}
