package attach

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Agent is a coding agent vigil attaches to, named as on the command line.
type Agent string

// The agents vigil attaches to.
const (
	ClaudeCode Agent = "claude-code"
	Codex      Agent = "codex"
)

// Agents lists every agent vigil attaches to: through hook entries in a
// settings file, or (pi and omp, [UsesExtension]) with vigil's extension.
func Agents() []Agent { return []Agent{ClaudeCode, Codex, Pi, Omp} }

// ParseAgent returns the agent named s, or an error listing the known ones.
func ParseAgent(s string) (Agent, error) {
	for _, a := range Agents() {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q: want claude-code, codex, pi or omp", s)
}

// Hook is one hook vigil installs for an agent.
type Hook struct {
	Event string
	// Matcher is the group's "matcher"; "" writes no matcher (the events
	// that do not name a tool).
	Matcher string
	// Timeout is the handler's "timeout" in seconds.
	Timeout int
	// HTTP: with --http, Claude Code sends this event to vigil hookd as
	// an HTTP hook instead of starting the hook command. SessionStart
	// and UserPromptSubmit stay commands: they start hookd when it is
	// not running.
	HTTP bool
}

// Hook timeouts, in seconds. Stop waits up to 30 s for a pending note and
// a tool boundary for the review advisor.syncBacklog asks for (bounded by
// advisor.syncTimeoutSeconds), so their hooks get room beyond that; every
// other event answers at once.
const (
	stopTimeout  = 45
	toolTimeout  = 45
	otherTimeout = 10
)

// Hooks returns the hooks vigil installs for a, in the order it writes them.
func Hooks(a Agent) []Hook {
	switch a {
	case ClaudeCode:
		return []Hook{
			{Event: "PostToolUse", Matcher: "*", Timeout: toolTimeout, HTTP: true},
			// A command that exits non-zero fires only this one.
			{Event: "PostToolUseFailure", Matcher: "*", Timeout: toolTimeout, HTTP: true},
			{Event: "Stop", Timeout: stopTimeout, HTTP: true},
			{Event: "SessionStart", Timeout: otherTimeout},
			{Event: "UserPromptSubmit", Timeout: otherTimeout},
			{Event: "SessionEnd", Timeout: otherTimeout, HTTP: true},
			{Event: "PreCompact", Timeout: otherTimeout, HTTP: true},
		}
	case Codex:
		return []Hook{
			// Codex fires PostToolUse for failing commands too.
			{Event: "PostToolUse", Matcher: "*", Timeout: toolTimeout},
			{Event: "Stop", Timeout: stopTimeout},
			{Event: "SessionStart", Timeout: otherTimeout},
			{Event: "UserPromptSubmit", Timeout: otherTimeout},
			{Event: "PreCompact", Timeout: otherTimeout},
		}
	}
	return nil
}

// hookFor returns the hook vigil installs for event, if any.
func hookFor(a Agent, event string) (Hook, bool) {
	for _, h := range Hooks(a) {
		if h.Event == event {
			return h, true
		}
	}
	return Hook{}, false
}

// Command returns the hook command for a: binary, quoted for a POSIX
// shell when it needs it, followed by "hook" and the agent; or, when
// binary is the small hook binary ([IsHookBinary]), by the agent alone.
func Command(binary string, a Agent) string {
	if IsHookBinary(binary) {
		return ShellQuote(binary) + " " + string(a)
	}
	return ShellQuote(binary) + " hook " + string(a)
}

// HookBinaryName is the file name of the small hook binary, vigil-hook
// (cmd/vigil-hook): it does what `vigil hook AGENT` does, starting
// several times faster, and starts sidecars with the vigil beside it.
const HookBinaryName = "vigil-hook"

// IsHookBinary reports whether binary names the small hook binary: its
// file name starts with vigil-hook. Its command is `vigil-hook AGENT`.
func IsHookBinary(binary string) bool {
	return strings.HasPrefix(filepath.Base(binary), HookBinaryName)
}

// ShellQuote quotes s as one word for a POSIX shell: unchanged when it has
// only characters no shell treats specially, otherwise in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !plainShellRune(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func plainShellRune(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune("/._-+:@%,=", r)
}

// vigilBinary returns the binary of command when command is vigil's hook
// for a: its first word names a file whose name starts with "vigil" and
// its next words are "hook" and a; or its first word names the hook
// binary ([IsHookBinary]) and its next word is a (fast reports this
// form). end is the byte offset where the agent's word ends in command:
// the words after it are not vigil's.
func vigilBinary(command string, a Agent) (binary string, end int, fast, ok bool) {
	words, ends, ok := shellWords(command, 3)
	if !ok || len(words) < 2 || !strings.HasPrefix(filepath.Base(words[0]), "vigil") {
		return "", 0, false, false
	}
	switch {
	case len(words) == 3 && words[1] == "hook" && words[2] == string(a):
		return words[0], ends[2], false, true
	case IsHookBinary(words[0]) && words[1] == string(a):
		return words[0], ends[1], true, true
	}
	return "", 0, false, false
}

// withBinary returns command with vigil's words, which end at end,
// replaced by the hook command that runs binary for a.
func withBinary(command string, end int, binary string, a Agent) string {
	return Command(binary, a) + command[end:]
}

// shellWords splits the first max words off command the way a POSIX shell
// splits a simple command: blanks separate words; single quotes keep
// everything; double quotes keep everything but \ before $ ` " \ and
// newline; a backslash outside quotes keeps the next character. It
// returns each word's end offset. ok is false for an unterminated quote.
// Expansions and operators are not interpreted: a command that uses them is
// not one vigil wrote.
func shellWords(command string, max int) (words []string, ends []int, ok bool) {
	i := 0
	for len(words) < max {
		for i < len(command) && (command[i] == ' ' || command[i] == '\t' || command[i] == '\n') {
			i++
		}
		if i == len(command) {
			break
		}
		var w strings.Builder
		for i < len(command) && command[i] != ' ' && command[i] != '\t' && command[i] != '\n' {
			switch c := command[i]; c {
			case '\'':
				j := strings.IndexByte(command[i+1:], '\'')
				if j < 0 {
					return nil, nil, false
				}
				w.WriteString(command[i+1 : i+1+j])
				i += j + 2
			case '"':
				i++
				for {
					if i == len(command) {
						return nil, nil, false
					}
					c := command[i]
					if c == '"' {
						i++
						break
					}
					if c == '\\' && i+1 < len(command) && strings.IndexByte("$`\"\\\n", command[i+1]) >= 0 {
						i++
						c = command[i]
					}
					w.WriteByte(c)
					i++
				}
			case '\\':
				if i+1 < len(command) {
					w.WriteByte(command[i+1])
					i += 2
				} else {
					i++
				}
			default:
				w.WriteByte(c)
				i++
			}
		}
		words = append(words, w.String())
		ends = append(ends, i)
	}
	return words, ends, true
}

// quoteJSONString returns s as a JSON string literal, without the HTML
// escaping encoding/json applies (a path may hold &).
func quoteJSONString(s string) []byte {
	b := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b = append(b, fmt.Sprintf(`\u%04x`, r)...)
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

// jsonInt returns n as a JSON number.
func jsonInt(n int) []byte { return strconv.AppendInt(nil, int64(n), 10) }

// vigilURL reports whether url is vigil hookd's hook URL for a:
// http://127.0.0.1:PORT/hook/SECRET/AGENT (or localhost).
func vigilURL(url string, a Agent) bool {
	rest, ok := strings.CutPrefix(url, "http://")
	if !ok {
		return false
	}
	host, path, ok := strings.Cut(rest, "/")
	if !ok {
		return false
	}
	h, _, _ := strings.Cut(host, ":")
	if h != "127.0.0.1" && h != "localhost" && h != "[::1]" {
		return false
	}
	parts := strings.Split(path, "/")
	return len(parts) == 3 && parts[0] == "hook" && parts[1] != "" && parts[2] == string(a)
}
