package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

//go:embed write.md
var writeDescription string

// maxDiffBytes is the largest file whose changes write and edit show as a
// diff.
const maxDiffBytes = 4 << 20

// writeParams are the arguments write takes.
func writeParams() []param {
	return []param{
		{name: "path", kind: kindString, required: true, desc: "The file to write, relative to the working folder or absolute."},
		{name: "content", kind: kindString, required: true, desc: "The file's complete new content."},
	}
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// writeTool creates or overwrites a file.
type writeTool struct{ s *Session }

func (t *writeTool) Definition() llm.Tool {
	return llm.Tool{Name: "write", Description: t.s.describe(writeDescription), Schema: schema(writeParams())}
}

func (t *writeTool) Run(ctx context.Context, call Call) (Result, error) {
	c, err := t.prepare(ctx, call)
	if err != nil {
		return Result{}, err
	}
	var warnings []string
	if c.existed {
		warnings = t.s.changeWarnings(c.path, c.shown, contentSum(c.old), lineRange{})
	}

	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return Result{}, fmt.Errorf("write %s: create parent folders: %w", c.shown, err)
	}
	if err := os.WriteFile(c.path, []byte(c.content), c.mode); err != nil {
		return Result{}, fmt.Errorf("write %s: %w", c.shown, err)
	}
	t.s.recordSeen(c.path, contentSum([]byte(c.content)), lineRange{1, max(len(splitLines(c.content)), 1)})

	var sb strings.Builder
	fmt.Fprintf(&sb, "Wrote %s to %s", plural(len(c.content), "byte"), c.shown)
	switch {
	case !c.existed:
		sb.WriteString(" (new file)")
	case string(c.old) == c.content:
		sb.WriteString(" (content unchanged)")
	default:
		fmt.Fprintf(&sb, " (replaced %s)", plural(len(c.old), "byte"))
	}
	writeWarnings(&sb, warnings)
	return Result{
		Content: []llm.Block{llm.Text(sb.String())},
		Details: Details{Path: c.path, Diff: c.diff(), BytesWritten: len(c.content), Warnings: warnings},
	}, nil
}

// Preview says what the call would change, changing nothing.
func (t *writeTool) Preview(ctx context.Context, call Call) (Details, error) {
	c, err := t.prepare(ctx, call)
	if err != nil {
		return Details{}, err
	}
	return Details{Path: c.path, Diff: c.diff()}, nil
}

// writeChange is what a write call would do.
type writeChange struct {
	path, shown string
	mode        fs.FileMode
	// old is the file's content now, when it existed.
	old     []byte
	existed bool
	content string
}

// prepare checks a write call and reads what it would replace, writing
// nothing.
func (t *writeTool) prepare(ctx context.Context, call Call) (writeChange, error) {
	var args writeArgs
	if err := decodeArgs("write", call.Arguments, writeParams(), &args); err != nil {
		return writeChange{}, err
	}
	path, err := t.s.resolve(args.Path, accessWrite)
	if err != nil {
		return writeChange{}, fmt.Errorf("write %s: %w", args.Path, err)
	}
	if err := ctx.Err(); err != nil {
		return writeChange{}, fmt.Errorf("write %s: %w", args.Path, err)
	}
	c := writeChange{path: path, shown: t.s.display(path), mode: 0o644, content: args.Content}
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return writeChange{}, fmt.Errorf("write %s: is a directory", c.shown)
	case err == nil && !info.Mode().IsRegular():
		return writeChange{}, fmt.Errorf("write %s: not a regular file (%s)", c.shown, info.Mode().Type())
	case err == nil:
		c.existed = true
		c.mode = info.Mode().Perm()
		if c.old, err = os.ReadFile(path); err != nil {
			return writeChange{}, fmt.Errorf("write %s: read the current content: %w", c.shown, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return writeChange{}, fmt.Errorf("write %s: %w", c.shown, err)
	}
	return c, nil
}

// diff is the change as a unified diff; "" for a file too large or
// binary to show.
func (c writeChange) diff() string {
	if len(c.old) > maxDiffBytes || len(c.content) > maxDiffBytes || binaryReason(c.old, true) != "" {
		return ""
	}
	before := "a/" + c.shown
	if !c.existed {
		before = "/dev/null"
	}
	return unifiedDiff(before, "b/"+c.shown, string(c.old), c.content)
}

func writeWarnings(sb *strings.Builder, warnings []string) {
	for _, w := range warnings {
		sb.WriteString("\nWarning: ")
		sb.WriteString(w)
	}
}
