package rules

import (
	"strconv"
	"strings"
)

// canonicalShell renders a parsed command line without noise, so that
// `cd /repo && python x.py 2>&1 | tail -50` and `python x.py` compare
// equal: cd, sleep and true commands are dropped, and so are trailing
// display filters that only trim the previous command's output.
func canonicalShell(cmds []simpleCmd) string {
	var b strings.Builder
	b.Grow(64)
	for i := range cmds {
		c := &cmds[i]
		prog, _ := c.program()
		switch prog {
		case "cd", "sleep", "true", ":":
			continue
		}
		if c.piped && displayFilters[prog] && len(c.out) == 0 && trailingFilters(cmds[i:]) {
			break
		}
		if b.Len() > 0 {
			if c.piped {
				b.WriteString(" | ")
			} else {
				b.WriteString(" ; ")
			}
		}
		if prog == "python3" || strings.HasPrefix(prog, "python3.") {
			b.WriteString("python")
			for _, a := range c.args[1:] {
				b.WriteByte(' ')
				b.WriteString(a)
			}
		} else {
			writeWords(&b, c.args)
		}
		for _, o := range c.out {
			b.WriteString(" > ")
			b.WriteString(o)
		}
		if c.heredoc != "" {
			// The body by its hash: the content matters, not its noise,
			// and hashing it whole is cheaper than normalising it.
			b.WriteString(" <<")
			b.WriteString(strconv.FormatUint(uint64(textSig(c.heredoc)), 36))
		}
	}
	return b.String()
}

// bareShell renders a parsed command line without here-document bodies,
// keeping operators, so flags and `|| true` can be looked for without
// reading the scripts a line carries.
func bareShell(cmds []simpleCmd) string {
	var b strings.Builder
	b.Grow(64)
	for i := range cmds {
		c := &cmds[i]
		writeWords(&b, c.args)
		for _, o := range c.out {
			b.WriteString(" > ")
			b.WriteString(o)
		}
		if c.op != "" && i < len(cmds)-1 || c.op == "||" || c.op == "&&" {
			b.WriteByte(' ')
			b.WriteString(c.op)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// trailingFilters reports whether every command from here on is a piped
// display filter.
func trailingFilters(cmds []simpleCmd) bool {
	for i := range cmds {
		prog, _ := cmds[i].program()
		if !cmds[i].piped || !displayFilters[prog] || len(cmds[i].out) > 0 {
			return false
		}
	}
	return true
}

// writeWords writes words separated by spaces, as strings.Join would
// without building the joined string.
func writeWords(b *strings.Builder, words []string) {
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
}
