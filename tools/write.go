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
	var args writeArgs
	if err := decodeArgs("write", call.Arguments, writeParams(), &args); err != nil {
		return Result{}, err
	}
	path, err := t.s.resolve(args.Path, accessWrite)
	if err != nil {
		return Result{}, fmt.Errorf("write %s: %w", args.Path, err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("write %s: %w", args.Path, err)
	}
	shown := t.s.display(path)

	mode := fs.FileMode(0o644)
	var old []byte
	existed := false
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return Result{}, fmt.Errorf("write %s: is a directory", shown)
	case err == nil && !info.Mode().IsRegular():
		return Result{}, fmt.Errorf("write %s: not a regular file (%s)", shown, info.Mode().Type())
	case err == nil:
		existed = true
		mode = info.Mode().Perm()
		if old, err = os.ReadFile(path); err != nil {
			return Result{}, fmt.Errorf("write %s: read the current content: %w", shown, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return Result{}, fmt.Errorf("write %s: %w", shown, err)
	}
	var warnings []string
	if existed {
		warnings = t.s.changeWarnings(path, shown, contentSum(old), lineRange{})
	}

	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Result{}, fmt.Errorf("write %s: create parent folders: %w", shown, err)
	}
	if err := os.WriteFile(path, []byte(args.Content), mode); err != nil {
		return Result{}, fmt.Errorf("write %s: %w", shown, err)
	}
	t.s.recordSeen(path, contentSum([]byte(args.Content)), lineRange{1, max(len(splitLines(args.Content)), 1)})

	var diff string
	if len(old) <= maxDiffBytes && len(args.Content) <= maxDiffBytes && binaryReason(old, true) == "" {
		before := "a/" + shown
		if !existed {
			before = "/dev/null"
		}
		diff = unifiedDiff(before, "b/"+shown, string(old), args.Content)
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "Wrote %s to %s", plural(len(args.Content), "byte"), shown)
	switch {
	case !existed:
		sb.WriteString(" (new file)")
	case string(old) == args.Content:
		sb.WriteString(" (content unchanged)")
	default:
		fmt.Fprintf(&sb, " (replaced %s)", plural(len(old), "byte"))
	}
	writeWarnings(&sb, warnings)
	return Result{
		Content: []llm.Block{llm.Text(sb.String())},
		Details: Details{Path: path, Diff: diff, BytesWritten: len(args.Content), Warnings: warnings},
	}, nil
}

func writeWarnings(sb *strings.Builder, warnings []string) {
	for _, w := range warnings {
		sb.WriteString("\nWarning: ")
		sb.WriteString(w)
	}
}
