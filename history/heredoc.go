package history

// Files a shell command writes from a here-document (cat > f <<'EOF'),
// which agents that have only a shell (mini-swe-agent, Codex) use to
// write files.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A heredocWrite is one file a command writes from a here-document: the
// file, whether it appends, and where the body is in the command.
type heredocWrite struct {
	path       string
	appends    bool
	start, end int // the body's offsets in the command
}

// maxHeredocCommand bounds the command heredocWrites parses.
const maxHeredocCommand = 1 << 20

// heredocWrites returns the files cmd writes from here-documents with cat
// or tee: cat > PATH <<'EOF', cat <<EOF >> PATH, tee [-a] PATH <<EOF. It
// returns nil for a command the bash parser rejects, or longer than
// maxHeredocCommand.
func heredocWrites(cmd string) []heredocWrite {
	if len(cmd) > maxHeredocCommand || !strings.Contains(cmd, "<<") {
		return nil
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil
	}
	var writes []heredocWrite
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		var body, delim *syntax.Word
		w := heredocWrite{}
		for _, r := range st.Redirs {
			switch {
			case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil && r.Word != nil:
				body, delim = r.Hdoc, r.Word
			case (r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrClob) && r.N == nil && r.Word != nil:
				w.path, w.appends = r.Word.Lit(), r.Op == syntax.AppOut
			}
		}
		switch call.Args[0].Lit() {
		case "cat":
			if len(call.Args) > 1 {
				return true // cat of files, not of its input
			}
		case "tee":
			w.path = ""
			for _, a := range call.Args[1:] {
				switch lit := a.Lit(); {
				case lit == "-a" || lit == "--append":
					w.appends = true
				case lit != "" && !strings.HasPrefix(lit, "-") && w.path == "":
					w.path = lit
				}
			}
		default:
			return true
		}
		if body == nil || w.path == "" || w.path == "/dev/null" {
			return true
		}
		w.start, w.end = int(body.Pos().Offset()), int(body.End().Offset())
		if w.start >= w.end || w.end > len(cmd) {
			return true
		}
		// The body's end takes in the closing delimiter's line.
		text := strings.TrimRight(cmd[w.start:w.end], "\n")
		last := text[strings.LastIndexByte(text, '\n')+1:]
		word := strings.Trim(cmd[delim.Pos().Offset():delim.End().Offset()], `'"\`)
		if strings.TrimLeft(last, "\t") == word {
			w.end = w.start + len(text) - len(last)
		}
		if w.start < w.end {
			writes = append(writes, w)
		}
		return true
	})
	return writes
}

// heredocChange returns the lines of the files cmd writes from
// here-documents: "+++ PATH" (with " (appended)" for >> and tee -a) and the
// body as added lines, redacted.
func (w *writer) heredocChange(cmd string) []string {
	var lines []string
	for _, h := range heredocWrites(cmd) {
		head := "+++ " + h.path
		if h.appends {
			head += " (appended)"
		}
		lines = append(lines, w.redact(head))
		lines = append(lines, w.added(cmd[h.start:h.end])...)
	}
	return lines
}

// elideHeredocs replaces the body of each here-document a command writes
// to a file with "‹N lines›": the body is shown under the tool line.
func elideHeredocs(cmd string) string {
	writes := heredocWrites(cmd)
	for i := len(writes) - 1; i >= 0; i-- {
		h := writes[i]
		n := lineCount(strings.TrimSuffix(cmd[h.start:h.end], "\n"))
		cmd = cmd[:h.start] + "‹" + plural(n, "line") + "›\n" + cmd[h.end:]
	}
	return cmd
}
