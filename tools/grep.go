package tools

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

//go:embed grep.md
var grepDescription string

const (
	// grepLineBytes is the longest matching line grep shows whole.
	grepLineBytes = 500
	// grepMaxFileBytes is the largest file grep searches.
	grepMaxFileBytes = 16 << 20
	// defaultMaxMatches is how many matches grep reports unless told.
	defaultMaxMatches = 100
)

// grepParams are the arguments grep takes.
func grepParams() []param {
	return []param{
		{name: "pattern", kind: kindString, required: true, desc: "A Go (RE2) regular expression, or plain text when literal is true."},
		{name: "path", kind: kindString, desc: "The folder or file to search. Default: the working folder."},
		{name: "include", kind: kindString, desc: `Search only files matching this glob: "*.go" matches names at any depth, "cmd/**/*.go" paths below the search folder.`},
		{name: "exclude", kind: kindString, desc: "Skip files matching this glob, in the same form as include."},
		{name: "ignore_case", kind: kindBoolean, desc: "Match without regard to case. Default false."},
		{name: "literal", kind: kindBoolean, desc: "Treat pattern as plain text, not a regular expression. Default false."},
		{name: "context", kind: kindInteger, min: intPtr(0), desc: "Lines of context to show before and after each match. Default 0."},
		{name: "max_matches", kind: kindInteger, min: intPtr(1), desc: fmt.Sprintf("Stop after this many matching lines. Default %d.", defaultMaxMatches)},
	}
}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Include    string `json:"include"`
	Exclude    string `json:"exclude"`
	IgnoreCase bool   `json:"ignore_case"`
	Literal    bool   `json:"literal"`
	Context    int    `json:"context"`
	MaxMatches int    `json:"max_matches"`
}

// grepTool searches file contents with a regular expression. The read-only
// set offers it as "search".
type grepTool struct {
	s    *Session
	name string
}

func (t *grepTool) Definition() llm.Tool {
	return llm.Tool{Name: t.name, Description: t.s.describe(grepDescription), Schema: schema(grepParams())}
}

// grepRun is the state of one search.
type grepRun struct {
	s       *Session
	re      *regexp.Regexp
	context int
	max     int

	out       strings.Builder
	outLines  int
	matches   int
	capped    bool // the output limits cut the listing
	full      bool // max matches reached
	tooLarge  int
	lastGroup bool // something was written, so a new group needs "--"
}

func (t *grepTool) Run(ctx context.Context, call Call) (Result, error) {
	var args grepArgs
	if err := decodeArgs(t.name, call.Arguments, grepParams(), &args); err != nil {
		return Result{}, err
	}
	expr := args.Pattern
	if args.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if args.IgnoreCase {
		expr = "(?i)" + expr
	}
	if args.Pattern == "" {
		return Result{}, fmt.Errorf("%s: pattern is empty", t.name)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Result{}, fmt.Errorf("%s: pattern %q is not a valid Go regular expression: %v; set literal to true to search for the text as written", t.name, args.Pattern, stripRegexpPrefix(err))
	}
	var include, exclude *glob
	if args.Include != "" {
		g, err := parseGlob("include", args.Include)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", t.name, err)
		}
		include = &g
	}
	if args.Exclude != "" {
		g, err := parseGlob("exclude", args.Exclude)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", t.name, err)
		}
		exclude = &g
	}
	target := args.Path
	if target == "" {
		target = "."
	}
	start, err := t.s.resolve(target, accessRead)
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w", t.name, target, err)
	}
	info, err := os.Stat(start)
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w", t.name, target, notExistHint(err))
	}
	g := &grepRun{s: t.s, re: re, context: args.Context, max: args.MaxMatches}
	if g.max == 0 {
		g.max = defaultMaxMatches
	}

	var stats walkStats
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return Result{}, fmt.Errorf("%s %s: not a regular file", t.name, target)
		}
		skipped, err := g.file(ctx, start)
		if err != nil {
			return Result{}, fmt.Errorf("%s %s: %w", t.name, target, err)
		}
		if skipped != "" {
			return Result{}, fmt.Errorf("%s %s: %s", t.name, t.s.display(start), skipped)
		}
	} else {
		stats, err = t.s.walk(ctx, start, func(e walkEntry) error {
			if !e.entry.Type().IsRegular() {
				return nil
			}
			if include != nil && !include.match(e.rel) || exclude != nil && exclude.match(e.rel) {
				return nil
			}
			if _, err := g.file(ctx, e.path); err != nil {
				return err
			}
			if g.full || g.capped {
				return fs.SkipAll
			}
			return nil
		})
		if err != nil {
			return Result{}, fmt.Errorf("%s %s: %w", t.name, target, err)
		}
	}

	if g.matches == 0 {
		msg := fmt.Sprintf("No matches for %q in %s", args.Pattern, t.s.display(start))
		return textResult(msg + g.notes(stats)), nil
	}
	text := g.out.String()
	switch {
	case g.capped:
		text += fmt.Sprintf("[output cut after %d matching lines to fit the output limit; narrow the pattern, path or include]\n", g.matches)
	case g.full:
		text += fmt.Sprintf("[stopped at %d matches; narrow the pattern, path or include, or raise max_matches]\n", g.max)
	}
	text += strings.TrimPrefix(g.notes(stats), "\n")
	return Result{
		Content: []llm.Block{llm.Text(strings.TrimSuffix(text, "\n"))},
		Details: Details{Matches: g.matches, Truncated: g.capped || g.full},
	}, nil
}

// stripRegexpPrefix drops the "error parsing regexp: " every regexp error
// starts with.
func stripRegexpPrefix(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

func (g *grepRun) notes(stats walkStats) string {
	var parts []string
	if g.tooLarge > 0 {
		parts = append(parts, fmt.Sprintf("skipped %s larger than %s", plural(g.tooLarge, "file"), sizeString(grepMaxFileBytes)))
	}
	if stats.unreadable > 0 {
		parts = append(parts, fmt.Sprintf("could not list %s", plural(stats.unreadable, "folder")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n[" + strings.Join(parts, "; ") + "]"
}

// file searches one file. It returns why the file was skipped (binary, too
// large), or "".
func (g *grepRun) file(ctx context.Context, path string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return err.Error(), nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, grepMaxFileBytes+1))
	if err != nil {
		return err.Error(), nil
	}
	if len(data) > grepMaxFileBytes {
		g.tooLarge++
		return fmt.Sprintf("file larger than %s", sizeString(grepMaxFileBytes)), nil
	}
	if why := binaryReason(data[:min(len(data), sniffLen)], len(data) <= sniffLen); why != "" {
		return "binary file (" + why + ")", nil
	}
	lines := splitLines(string(data))
	shown := g.s.display(path)
	// Lines [lo, hi) of the current group, pending output.
	printedTo := -1 // last line index written for this file
	for i := 0; i < len(lines) && !g.full && !g.capped; i++ {
		if !g.re.MatchString(lines[i]) {
			continue
		}
		g.matches++
		lo := max(i-g.context, printedTo+1)
		if g.lastGroup && (printedTo < 0 || lo > printedTo+1) && g.context > 0 {
			g.emit("--")
		}
		for j := lo; j < i; j++ {
			g.emitLine(shown, j, lines[j], '-')
		}
		g.emitLine(shown, i, lines[i], ':')
		printedTo = i
		if g.matches >= g.max {
			g.full = true
		}
		// Trailing context, unless another match comes first.
		for j := i + 1; j <= i+g.context && j < len(lines); j++ {
			if g.re.MatchString(lines[j]) && !g.full {
				break
			}
			g.emitLine(shown, j, lines[j], '-')
			printedTo = j
		}
		g.lastGroup = true
	}
	return "", nil
}

func (g *grepRun) emitLine(path string, i int, line string, sep byte) {
	line = strings.ToValidUTF8(line, "\uFFFD")
	if g.s.opts.Redact != nil && len(line) > grepLineBytes {
		// Only a line that will be cut (see Options.Redact).
		line = g.s.opts.Redact(line)
	}
	cut, dropped := cutLine(line, grepLineBytes)
	if dropped > 0 {
		cut += fmt.Sprintf("… [%d more bytes]", dropped)
	}
	g.emit(fmt.Sprintf("%s%c%d%c%s", path, sep, i+1, sep, cut))
}

func (g *grepRun) emit(s string) {
	if g.capped {
		return
	}
	if g.outLines >= g.s.opts.MaxLines || g.out.Len()+len(s)+1 > g.s.opts.MaxBytes {
		g.capped = true
		return
	}
	g.out.WriteString(s)
	g.out.WriteByte('\n')
	g.outLines++
}
