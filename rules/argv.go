package rules

import (
	"bytes"
	"encoding/json"
	"strings"
)

// commandText reads a command given as a string or as an argv list; an
// argv of a shell with -c or -lc is the script it runs.
func commandText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : n-1]) // a string without escapes
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		if len(argv) >= 3 && interpreters[baseName(argv[0])] && strings.HasPrefix(argv[len(argv)-2], "-") && strings.HasSuffix(argv[len(argv)-2], "c") {
			return argv[len(argv)-1]
		}
		return joinArgv(argv)
	}
	return ""
}

// joinArgv writes an argv list as the shell command line that runs it:
// words that hold spaces or shell syntax are single-quoted, so that a
// patch or a script passed as one word (["apply_patch", "*** Begin
// Patch…"]) stays one word instead of being read as redirections and
// separators. Single quotes keep newlines as they are, which the shell
// readers take in stride, where bash's $'…' would escape them.
func joinArgv(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`|&;<>()*?[]{}~#!=") {
			b.WriteString(w)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}
