package tools

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

//go:embed find.md
var findDescription string

// defaultFindLimit is how many paths find lists unless told.
const defaultFindLimit = 1000

// findParams are the arguments find takes.
func findParams() []param {
	return []param{
		{name: "pattern", kind: kindString, required: true, desc: `A glob: "*.go" matches names at any depth, "cmd/**/main.go" paths below the search folder; ** matches any number of folders, {a,b} either.`},
		{name: "path", kind: kindString, desc: "The folder to search. Default: the working folder."},
		{name: "limit", kind: kindInteger, min: intPtr(1), desc: fmt.Sprintf("List at most this many paths. Default %d.", defaultFindLimit)},
	}
}

type findArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Limit   int    `json:"limit"`
}

// findTool lists files whose paths match a glob.
type findTool struct{ s *Session }

func (t *findTool) Definition() llm.Tool {
	return llm.Tool{Name: "find", Description: t.s.describe(findDescription), Schema: schema(findParams())}
}

func (t *findTool) Run(ctx context.Context, call Call) (Result, error) {
	var args findArgs
	if err := decodeArgs("find", call.Arguments, findParams(), &args); err != nil {
		return Result{}, err
	}
	g, err := parseGlob("pattern", args.Pattern)
	if err != nil {
		return Result{}, fmt.Errorf("find: %w", err)
	}
	limit := args.Limit
	if limit == 0 {
		limit = defaultFindLimit
	}
	target := args.Path
	if target == "" {
		target = "."
	}
	start, err := t.s.resolve(target, accessRead)
	if err != nil {
		return Result{}, fmt.Errorf("find %s: %w", target, err)
	}
	info, err := os.Stat(start)
	if err != nil {
		return Result{}, fmt.Errorf("find %s: %w", target, notExistHint(err))
	}
	if !info.IsDir() {
		return Result{}, fmt.Errorf("find %s: not a folder; find searches folders (use read for a file)", target)
	}

	var out strings.Builder
	listed, total := 0, 0
	capped := false
	stats, err := t.s.walk(ctx, start, func(e walkEntry) error {
		if !g.match(e.rel) {
			return nil
		}
		total++
		if listed >= limit || capped {
			return nil
		}
		line := t.s.display(e.path)
		if e.entry.IsDir() {
			line += "/"
		}
		if listed >= t.s.opts.MaxLines || out.Len()+len(line)+1 > t.s.opts.MaxBytes {
			capped = true
			return nil
		}
		out.WriteString(line)
		out.WriteByte('\n')
		listed++
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("find %s: %w", target, err)
	}
	if total == 0 {
		msg := fmt.Sprintf("No paths match %q in %s", args.Pattern, t.s.display(start))
		if stats.unreadable > 0 {
			msg += fmt.Sprintf("\n[could not list %s]", plural(stats.unreadable, "folder"))
		}
		return textResult(msg), nil
	}
	if listed < total {
		fmt.Fprintf(&out, "[... %d more; narrow the pattern or path, or raise limit]\n", total-listed)
	}
	if stats.unreadable > 0 {
		fmt.Fprintf(&out, "[could not list %s]\n", plural(stats.unreadable, "folder"))
	}
	return Result{
		Content: []llm.Block{llm.Text(strings.TrimSuffix(out.String(), "\n"))},
		Details: Details{Matches: total, Truncated: listed < total},
	}, nil
}
