package rules

import "strings"

// parseApplyPatch reads the edits of an apply_patch envelope (Codex's
// format): "*** Update File: p" sections whose removed lines become Old
// and added lines New, "*** Add File: p" as a write, "*** Delete File: p"
// as a delete. Text outside the envelope is ignored.
func parseApplyPatch(body string) []Edit {
	var edits []Edit
	var cur *Edit
	var old, repl strings.Builder
	flush := func() {
		if cur == nil {
			return
		}
		if cur.Op == EditReplace {
			cur.Old, cur.New = old.String(), repl.String()
		} else if cur.Op == EditWrite {
			cur.New = repl.String()
		}
		edits = append(edits, *cur)
		cur = nil
		old.Reset()
		repl.Reset()
	}
	for line := range strings.Lines(body) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "*** Update File: "):
			flush()
			cur = &Edit{Path: strings.TrimSpace(line[len("*** Update File: "):]), Op: EditReplace}
		case strings.HasPrefix(line, "*** Add File: "):
			flush()
			cur = &Edit{Path: strings.TrimSpace(line[len("*** Add File: "):]), Op: EditWrite}
		case strings.HasPrefix(line, "*** Delete File: "):
			flush()
			edits = append(edits, Edit{Path: strings.TrimSpace(line[len("*** Delete File: "):]), Op: EditDelete})
		case strings.HasPrefix(line, "*** Move to: "):
			if cur != nil {
				cur.Path = strings.TrimSpace(line[len("*** Move to: "):])
			}
		case strings.HasPrefix(line, "*** End Patch"):
			flush()
		case cur == nil:
		case strings.HasPrefix(line, "-"):
			old.WriteString(line[1:])
			old.WriteByte('\n')
		case strings.HasPrefix(line, "+"):
			repl.WriteString(line[1:])
			repl.WriteByte('\n')
		}
	}
	flush()
	return edits
}
