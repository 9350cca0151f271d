package rules

import (
	"strconv"
	"strings"
)

// canonicalShell appends to b a parsed command line without noise, so that
// `cd /repo && python x.py 2>&1 | tail -50` and `python x.py` compare
// equal: cd, sleep and true commands are dropped, and so are trailing
// display filters that only trim the previous command's output.
func canonicalShell(b []byte, cmds []simpleCmd) []byte {
	start := len(b)
	for i := range cmds {
		c := &cmds[i]
		prog, rest := c.program()
		switch prog {
		case "cd", "sleep", "true", ":":
			continue
		}
		if c.piped && displayFilters[prog] && len(c.out) == 0 && trailingFilters(cmds[i:]) {
			break
		}
		if len(b) > start {
			if c.piped {
				b = append(b, " | "...)
			} else {
				b = append(b, " ; "...)
			}
		}
		if at := len(c.args) - len(rest) - 1; (prog == "python3" || strings.HasPrefix(prog, "python3.")) && at >= 0 {
			// python3 is python, also behind a wrapper (nohup python3).
			b = appendWords(b, c.args[:at])
			if at > 0 {
				b = append(b, ' ')
			}
			b = append(b, "python"...)
			for _, a := range rest {
				b = append(b, ' ')
				b = append(b, a...)
			}
		} else {
			b = appendWords(b, c.args)
		}
		for _, o := range c.out {
			b = append(b, " > "...)
			b = append(b, o...)
		}
		if c.heredoc != "" {
			// The body by its hash: the content matters, not its noise,
			// and hashing it whole is cheaper than normalising it.
			b = append(b, " <<"...)
			b = strconv.AppendUint(b, uint64(textSig(c.heredoc)), 36)
		}
	}
	return b
}

// bareShell appends to b a parsed command line without here-document bodies,
// keeping operators, so flags and `|| true` can be looked for without
// reading the scripts a line carries.
func bareShell(b []byte, cmds []simpleCmd) []byte {
	for i := range cmds {
		c := &cmds[i]
		b = appendWords(b, c.args)
		for _, o := range c.out {
			b = append(b, " > "...)
			b = append(b, o...)
		}
		if c.op != "" && i < len(cmds)-1 || c.op == "||" || c.op == "&&" {
			b = append(b, ' ')
			b = append(b, c.op...)
			b = append(b, ' ')
		}
	}
	return b
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

// appendWords appends words separated by spaces, as strings.Join would
// without building the joined string.
func appendWords(b []byte, words []string) []byte {
	for i, w := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, w...)
	}
	return b
}
