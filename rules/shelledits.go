package rules

import "strings"

// sweEdit reads SWE-agent's multi-line edit command, "edit N:M", the new
// lines, then "end_of_edit", which is not shell syntax.
func sweEdit(line string) (Edit, bool) {
	if !strings.HasPrefix(line, "edit ") {
		return Edit{}, false
	}
	first, body, ok := strings.Cut(line, "\n")
	f := strings.Fields(first)
	if !ok || len(f) != 2 || f[0] != "edit" || !isLineRange(f[1]) {
		return Edit{}, false
	}
	body = strings.TrimRight(body, " \n")
	body = strings.TrimSuffix(body, "end_of_edit")
	return Edit{Op: EditLines, Old: f[1], New: body}, true
}

func (f *shellFacts) git(args []string) {
	sub := ""
	rest := args
	for len(rest) > 0 {
		if rest[0] == "-C" || rest[0] == "-c" {
			if len(rest) > 1 {
				rest = rest[2:]
				continue
			}
		}
		if strings.HasPrefix(rest[0], "-") {
			rest = rest[1:]
			continue
		}
		sub, rest = rest[0], rest[1:]
		break
	}
	switch sub {
	case "diff", "status", "log", "show", "blame", "grep", "ls-files", "rev-parse", "describe", "shortlog", "remote", "config", "branch", "tag", "reflog", "cat-file", "whatchanged":
		if sub == "grep" {
			f.raise(KindSearch)
		} else {
			f.raise(KindRead)
		}
		f.mention(rest)
	case "checkout", "restore":
		// git checkout [--] FILE… and git restore FILE… discard changes.
		files := gitPathArgs(rest)
		if len(files) == 0 {
			f.raise(KindShell)
			return
		}
		for _, p := range files {
			f.edits = append(f.edits, Edit{Path: p, Op: EditRestore})
		}
		f.raise(KindEdit)
	case "stash", "reset":
		if sub == "stash" && len(rest) > 0 && (rest[0] == "list" || rest[0] == "show") {
			f.raise(KindRead)
			return
		}
		if sub == "reset" && !contains(rest, "--hard") {
			f.raise(KindShell)
			return
		}
		f.edits = append(f.edits, Edit{Op: EditRestore})
		f.raise(KindEdit)
	case "apply", "am":
		f.edits = append(f.edits, Edit{Op: EditScript, New: strings.Join(rest, " ")})
		f.raise(KindEdit)
		f.mention(rest)
	default:
		f.raise(KindShell)
	}
}

// gitPathArgs returns the file arguments of git checkout or restore: the
// words after "--", or, without "--", the words that look like files.
func gitPathArgs(args []string) []string {
	for i, a := range args {
		if a == "--" {
			return args[i+1:]
		}
	}
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "HEAD" || a == "." && len(args) > 1 {
			continue
		}
		if strings.ContainsAny(a, "./") {
			out = append(out, a)
		}
	}
	return out
}

// sed handles sed -i and perl -pi: in-place edits. A substitution
// s/OLD/NEW/ is recorded as a replacement; other scripts as scripts.
func (f *shellFacts) sed(prog string, args []string) {
	inPlace := false
	var scripts, files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-i" || strings.HasPrefix(a, "-i") && prog == "sed" || strings.HasPrefix(a, "--in-place") || prog == "perl" && strings.HasPrefix(a, "-") && strings.Contains(a, "i"):
			inPlace = true
			if prog == "perl" && strings.HasSuffix(a, "e") && i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
		case a == "":
		case a == "-n" || a == "-E" || a == "-r" || a == "--quiet" || a == "-s" || a == "-u" || a == "-z":
		case strings.HasPrefix(a, "-"):
		case len(scripts) == 0:
			scripts = append(scripts, a)
		default:
			files = append(files, a)
		}
	}
	if !inPlace {
		f.mention(files)
		f.raise(KindRead)
		return
	}
	for _, p := range files {
		for _, s := range scripts {
			if old, repl, ok := splitSubstitution(s); ok {
				f.edits = append(f.edits, Edit{Path: p, Op: EditReplace, Old: old, New: repl})
			} else {
				f.edits = append(f.edits, Edit{Path: p, Op: EditScript, New: s})
			}
		}
	}
	f.raise(KindEdit)
}

// splitSubstitution splits a sed substitution s/OLD/NEW/flags into OLD and
// NEW, for any delimiter.
func splitSubstitution(s string) (old, repl string, ok bool) {
	if len(s) < 4 || s[0] != 's' {
		return "", "", false
	}
	d := s[1]
	var parts []string
	var b strings.Builder
	for i := 2; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == d {
			b.WriteByte(d)
			i++
			continue
		}
		if s[i] == d {
			parts = append(parts, b.String())
			b.Reset()
			if len(parts) == 2 {
				return parts[0], parts[1], true
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return "", "", false
}

// copy handles cp and mv: the destination takes the source's content.
func (f *shellFacts) copy(prog string, args []string) {
	var files []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			files = append(files, a)
		}
	}
	f.raise(KindEdit)
	if len(files) < 2 {
		return
	}
	dst := files[len(files)-1]
	for _, src := range files[:len(files)-1] {
		d := dst
		if strings.HasSuffix(dst, "/") || len(files) > 2 {
			d = strings.TrimSuffix(dst, "/") + "/" + baseName(src)
		}
		f.edits = append(f.edits, Edit{Path: d, Op: EditCopy, From: src})
		if prog == "mv" {
			f.edits = append(f.edits, Edit{Path: src, Op: EditDelete})
		}
	}
}

// patch handles patch and apply_patch, whose changes come in a here-
// document or a file.
func (f *shellFacts) patch(prog string, c *simpleCmd, args []string) {
	body := c.heredoc
	if body == "" {
		// The patch given as a word: apply_patch '*** Begin Patch…'.
		for _, a := range args {
			if strings.Contains(a, "*** Begin Patch") {
				body = a
				break
			}
		}
	}
	if body != "" && strings.Contains(body, "*** Begin Patch") {
		f.edits = append(f.edits, parseApplyPatch(body)...)
	} else {
		src := c.in
		for _, a := range args {
			if strings.HasPrefix(a, "-i") && len(a) > 2 {
				src = a[2:]
			}
		}
		if src != "" {
			f.paths = append(f.paths, src)
		}
		f.edits = append(f.edits, Edit{Op: EditScript, New: body + src})
	}
	f.raise(KindEdit)
}

// editor handles str_replace_editor given as a shell command (SWE-agent).
func (f *shellFacts) editor(args []string) {
	if len(args) < 2 {
		f.raise(KindOther)
		return
	}
	sub, p := args[0], args[1]
	flag := func(name string) string {
		for i := 2; i < len(args)-1; i++ {
			if args[i] == name {
				return args[i+1]
			}
		}
		return ""
	}
	switch sub {
	case "view":
		f.paths = append(f.paths, p)
		f.raise(KindRead)
	case "create":
		f.edits = append(f.edits, Edit{Path: p, Op: EditWrite, New: flag("--file_text")})
		f.raise(KindEdit)
	case "str_replace":
		f.edits = append(f.edits, Edit{Path: p, Op: EditReplace, Old: flag("--old_str"), New: flag("--new_str")})
		f.raise(KindEdit)
	case "insert":
		f.edits = append(f.edits, Edit{Path: p, Op: EditAppend, New: flag("--new_str")})
		f.raise(KindEdit)
	case "undo_edit":
		f.edits = append(f.edits, Edit{Path: p, Op: EditUndo})
		f.raise(KindEdit)
	default:
		f.raise(KindOther)
	}
}

func isLineRange(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	for j := 0; j < len(s); j++ {
		if j != i && (s[j] < '0' || s[j] > '9') {
			return false
		}
	}
	return true
}
