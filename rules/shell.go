package rules

// simpleCmd is one simple command of a shell command line: its words
// after quote removal, where its output goes and what it reads.
type simpleCmd struct {
	// args are the words, environment assignments (A=b) left out.
	args []string
	// env are the environment assignments before the words, which run
	// the command in another environment.
	env []string
	// out lists files the command writes with > or >>.
	out []string
	// appends is set when an output redirection is >>.
	appends bool
	// in is a file redirected to standard input with <.
	in string
	// heredoc is the body of a here-document fed to the command.
	heredoc string
	// piped is set when the command reads the previous one's output.
	piped bool
	// op is the operator that follows the command: "&&", "||", "|", "&",
	// or ";" (also after the last command).
	op string
}

// parseShell splits a command line into its simple commands, in order,
// as a reader of intent for detectors rather than a shell: it expands
// nothing, and on malformed input returns what it understood.
//
// Commands inside compound syntax are seen where they run: in the
// conditions and bodies of if, while, until, for and case, in subshells,
// blocks and functions, in command substitutions ($(…), `…`, also in
// assignments such as out=$(pytest)) and process substitutions, after !
// and time. Keywords are never commands. Words are rendered to their
// literal text where they are static (quotes and backslashes removed) and
// kept as written where they expand ($x, $(…)). A substitution's commands
// come before the command whose word holds it (before its whole pipeline
// when it is piped), and the redirections of a compound command apply to
// the first (input) and last (output) command inside it. Here-document
// bodies are kept as written and not searched for commands: they are text
// the agent meant to write.
//
// Two readers share the work. Every line is first read by the hand parser
// (parseHand), which is fast and reads simple commands, pipelines, lists,
// redirections and here-documents exactly as the bash parser does
// (TestParseShellSameAsHand), and which notices the syntax it only
// flattens. A line with such syntax (most lines have none) is read again
// with mvdan.cc/sh's bash parser. When that parser rejects the line, or
// could read it only by dropping text (an unclosed quote), or the line
// nests deeper than any person writes, the hand parser's best-effort
// reading stands: agents write lines that are not valid shell (truncated,
// Windows paths, PowerShell). The bash parser alone would do: it reads the
// same commands, but at about a fifth of the speed and eight times the
// allocation per line, which takes review of generated vigil sessions
// below 150 MB/s per core (BenchmarkShellGrammar, docs/benchmarks.md).
//
// Nothing is memoised: a memo of lines cost as much as it saved on real
// runs and on generated ones (docs/benchmarks.md, "One shell grammar?"),
// and process-wide state has no place in a library.
func parseShell(s string) []simpleCmd {
	cmds, compound := readHand(s)
	if !compound || nestsDeep(s, maxNesting) {
		return cmds
	}
	if full, ok := parseSyntax(s); ok {
		return full
	}
	return cmds
}

// maxNesting is how deeply brackets may nest for the bash parser to read a
// line. Its cost grows faster than the line on deep nesting (10,000 $( is
// tens of milliseconds); the hand parser reads such a line in one pass.
const maxNesting = 64

// nestsDeep reports whether parentheses and braces in s, counted without
// regard to quotes, nest deeper than limit.
func nestsDeep(s string, limit int) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{':
			if depth++; depth > limit {
				return true
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}
