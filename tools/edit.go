package tools

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

//go:embed edit.md
var editDescription string

// editParams are the arguments edit takes.
func editParams() []param {
	return []param{
		{name: "path", kind: kindString, required: true, desc: "The file to edit, relative to the working folder or absolute."},
		{name: "old_text", kind: kindString, required: true, desc: "The exact text to replace, including whitespace; it must occur exactly once unless replace_all is true."},
		{name: "new_text", kind: kindString, required: true, desc: "The text to put in its place."},
		{name: "replace_all", kind: kindBoolean, desc: "Replace every occurrence of old_text instead of requiring exactly one. Default false."},
	}
}

type editArgs struct {
	Path       string `json:"path"`
	OldText    string `json:"old_text"`
	NewText    string `json:"new_text"`
	ReplaceAll bool   `json:"replace_all"`
}

// editTool replaces exact text in a file.
type editTool struct{ s *Session }

func (t *editTool) Definition() llm.Tool {
	return llm.Tool{Name: "edit", Description: t.s.describe(editDescription), Schema: schema(editParams())}
}

func (t *editTool) Run(ctx context.Context, call Call) (Result, error) {
	c, err := t.prepare(ctx, call)
	if err != nil {
		return Result{}, err
	}
	warnings := t.s.changeWarnings(c.path, c.shown, contentSum(c.data), c.plan.oldLines)
	if err := os.WriteFile(c.path, []byte(c.plan.content), c.perm); err != nil {
		return Result{}, fmt.Errorf("edit %s: %w", c.shown, err)
	}
	t.s.recordChange(c.path, contentSum([]byte(c.plan.content)), c.plan.newLines)

	var sb strings.Builder
	if len(c.plan.lines) == 1 {
		fmt.Fprintf(&sb, "Edited %s: replaced 1 occurrence at line %d", c.shown, c.plan.lines[0])
	} else {
		fmt.Fprintf(&sb, "Edited %s: replaced %d occurrences, at lines %s", c.shown, len(c.plan.lines), lineList(c.plan.lines))
	}
	writeWarnings(&sb, warnings)
	return Result{
		Content: []llm.Block{llm.Text(sb.String())},
		Details: Details{Path: c.path, Diff: c.diff(), BytesWritten: len(c.plan.content), Warnings: warnings},
	}, nil
}

// Preview says what the call would change, changing nothing.
func (t *editTool) Preview(ctx context.Context, call Call) (Details, error) {
	c, err := t.prepare(ctx, call)
	if err != nil {
		return Details{}, err
	}
	return Details{Path: c.path, Diff: c.diff()}, nil
}

// editChange is what an edit call would do to its file.
type editChange struct {
	path, shown string
	perm        fs.FileMode
	// data is the file's content now; plan the change.
	data []byte
	plan editPlan
}

// prepare checks an edit call and plans it, writing nothing.
func (t *editTool) prepare(ctx context.Context, call Call) (editChange, error) {
	var args editArgs
	if err := decodeArgs("edit", call.Arguments, editParams(), &args); err != nil {
		return editChange{}, err
	}
	if args.OldText == "" {
		return editChange{}, fmt.Errorf("edit %s: old_text is empty; quote the text to replace (to create a file, use write)", args.Path)
	}
	if args.OldText == args.NewText {
		return editChange{}, fmt.Errorf("edit %s: old_text and new_text are the same; there is nothing to change", args.Path)
	}
	path, err := t.s.resolve(args.Path, accessWrite)
	if err != nil {
		return editChange{}, fmt.Errorf("edit %s: %w", args.Path, err)
	}
	if err := ctx.Err(); err != nil {
		return editChange{}, fmt.Errorf("edit %s: %w", args.Path, err)
	}
	shown := t.s.display(path)
	info, err := os.Stat(path)
	if err != nil {
		return editChange{}, fmt.Errorf("edit %s: %w (to create a file, use write)", shown, notExistHint(err))
	}
	if !info.Mode().IsRegular() {
		return editChange{}, fmt.Errorf("edit %s: not a regular file", shown)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return editChange{}, fmt.Errorf("edit %s: %w", shown, err)
	}
	if why := binaryReason(data[:min(len(data), sniffLen)], len(data) <= sniffLen); why != "" {
		return editChange{}, fmt.Errorf("edit %s: binary file (%s); edit changes only text files", shown, why)
	}
	plan, err := planEdit(string(data), args.OldText, args.NewText, args.ReplaceAll)
	if err != nil {
		return editChange{}, fmt.Errorf("edit %s: %w", shown, err)
	}
	return editChange{path: path, shown: shown, perm: info.Mode().Perm(), data: data, plan: plan}, nil
}

// diff is the change as a unified diff; "" for a file too large to show.
func (c editChange) diff() string {
	if len(c.data) > maxDiffBytes || len(c.plan.content) > maxDiffBytes {
		return ""
	}
	return unifiedDiff("a/"+c.shown, "b/"+c.shown, string(c.data), c.plan.content)
}

// editPlan is the outcome of matching an edit against a file's content.
type editPlan struct {
	// content is the file's new content.
	content string
	// lines are the 1-based line numbers where the replaced occurrences
	// start, in the old content.
	lines []int
	// oldLines spans the replaced text in the old content, newLines the
	// replacement in the new content.
	oldLines, newLines lineRange
}

// planEdit replaces oldText with newText in content. Exactly one occurrence
// must exist unless replaceAll is set, in which case there must be at least
// one. Occurrences do not overlap. When content uses CRLF line ends and
// oldText has none, both texts are matched and written with CRLF.
func planEdit(content, oldText, newText string, replaceAll bool) (editPlan, error) {
	offsets := findAll(content, oldText)
	if len(offsets) == 0 && strings.Contains(content, "\r\n") && !strings.Contains(oldText, "\r") {
		crlfOld := strings.ReplaceAll(oldText, "\n", "\r\n")
		if o := findAll(content, crlfOld); len(o) > 0 {
			offsets, oldText = o, crlfOld
			newText = strings.ReplaceAll(strings.ReplaceAll(newText, "\r\n", "\n"), "\n", "\r\n")
		}
	}
	if len(offsets) == 0 {
		return editPlan{}, fmt.Errorf("old_text not found%s", nearMatch(content, oldText))
	}
	lines := make([]int, len(offsets))
	for i, off := range offsets {
		lines[i] = lineOf(content, off)
	}
	if len(offsets) > 1 && !replaceAll {
		return editPlan{}, fmt.Errorf("old_text occurs %d times, at lines %s; include more surrounding lines to make it unique, or set replace_all to replace every occurrence", len(offsets), lineList(lines))
	}
	var sb strings.Builder
	prev := 0
	for _, off := range offsets {
		sb.WriteString(content[prev:off])
		sb.WriteString(newText)
		prev = off + len(oldText)
	}
	sb.WriteString(content[prev:])
	newContent := sb.String()

	first, last := offsets[0], offsets[len(offsets)-1]
	oldEnd := last + len(oldText)
	newStart := first
	newEnd := last + (len(offsets)-1)*(len(newText)-len(oldText)) + len(newText)
	return editPlan{
		content:  newContent,
		lines:    lines,
		oldLines: spanLines(content, first, oldEnd),
		newLines: spanLines(newContent, newStart, newEnd),
	}, nil
}

// findAll returns the offsets of the non-overlapping occurrences of sub in
// s, left to right, as strings.Replace would replace them.
func findAll(s, sub string) []int {
	var offs []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return offs
		}
		offs = append(offs, i+j)
		i += j + len(sub)
	}
}

// spanLines returns the lines that text[from:to] touches.
func spanLines(text string, from, to int) lineRange {
	first := lineOf(text, from)
	if to <= from {
		return lineRange{first, first}
	}
	last := lineOf(text, to-1)
	return lineRange{first, last}
}

// lineList shows line numbers, at most ten of them.
func lineList(lines []int) string {
	const show = 10
	parts := make([]string, 0, show)
	for i, n := range lines {
		if i == show {
			return strings.Join(parts, ", ") + fmt.Sprintf(" and %d more", len(lines)-show)
		}
		parts = append(parts, fmt.Sprint(n))
	}
	return strings.Join(parts, ", ")
}
