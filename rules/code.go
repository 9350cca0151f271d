package rules

import (
	"path"
	"strings"
)

// codeFacts is what detectors want to know about a script the agent
// wrote: what it imports and whether it rewrites other files.
type codeFacts struct {
	// imports are the top-level modules the code imports.
	imports []string
	// writes is set when the code opens files for writing and names
	// project files (not scratch files) it most likely rewrites: targets.
	writes  bool
	targets []string
}

// scanCode reads the facts of a file written whole; files that are not
// code give none.
func scanCode(p, content string) codeFacts {
	switch path.Ext(p) {
	case ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".sh", ".bash", "":
	default:
		return codeFacts{}
	}
	return scanSource(content, p)
}

// scanSource reads the facts of code; self is the code's own file name,
// left out of its targets.
func scanSource(code, self string) codeFacts {
	var f codeFacts
	f.imports = importsOf(code)
	if writesFiles(code) {
		for _, t := range sourceLiterals(code, self) {
			if inTestFolder(fileKey(t)) || !isScratchName(t) {
				f.targets = append(f.targets, t)
			}
		}
		f.writes = len(f.targets) > 0
	}
	return f
}

// importsOf returns the top-level modules that Python or JavaScript code
// imports.
func importsOf(code string) []string {
	var out []string
	add := func(m string) {
		m = strings.TrimSpace(m)
		if i := strings.IndexAny(m, ". ,;"); i >= 0 {
			m = m[:i]
		}
		if m == "" {
			return
		}
		for _, o := range out {
			if o == m {
				return
			}
		}
		out = append(out, strings.Clone(m)) // not a slice of the whole script
	}
	requires := strings.Contains(code, "require(")
	for line := range strings.Lines(code) {
		l := strings.TrimLeft(line, " \t")
		if !requires && !strings.HasPrefix(l, "import ") && !strings.HasPrefix(l, "from ") {
			continue
		}
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "import "):
			for _, part := range strings.Split(l[len("import "):], ",") {
				if strings.Contains(part, " from ") || strings.HasPrefix(strings.TrimSpace(part), "{") {
					continue
				}
				add(strings.Fields(part + " x")[0])
			}
			if i := strings.Index(l, " from "); i >= 0 {
				add(strings.Trim(strings.TrimSpace(l[i+6:]), `'";`))
			}
		case strings.HasPrefix(l, "from ") && strings.Contains(l, " import"):
			m := strings.Fields(l)[1]
			if !strings.HasPrefix(m, ".") {
				add(m)
			}
		}
		for rest := l; requires; {
			i := strings.Index(rest, "require(")
			if i < 0 {
				break
			}
			rest = rest[i+len("require("):]
			if j := strings.IndexByte(rest, ')'); j > 0 {
				add(strings.Trim(rest[:j], `'" `))
			}
		}
	}
	return out
}

// writesFiles reports whether code opens files for writing.
func writesFiles(code string) bool {
	if !strings.Contains(code, "open(") && !strings.Contains(code, "write") && !strings.Contains(code, "shutil") &&
		!strings.Contains(code, "os.replace") && !strings.Contains(code, "fileinput") {
		return false
	}
	for _, m := range writeMarkers {
		if strings.Contains(code, m) {
			return true
		}
	}
	return false
}

var writeMarkers = []string{
	", 'w')", `, "w")`, ", 'w+')", `, "w+")`, ", 'wb')", `, "wb")`, ", 'a')", `, "a")`,
	"mode='w'", `mode="w"`, ".write_text(", ".write_bytes(", "writeFileSync(", "writeFile(",
	"fileinput.input(", "inplace=True", "File.write(", "shutil.copy", "os.replace(",
}

// sourceExts are extensions of files a task's edits usually target.
var sourceExts = set(".py", ".go", ".js", ".ts", ".tsx", ".jsx", ".rb", ".java", ".c", ".h", ".cc",
	".cpp", ".rs", ".php", ".cfg", ".toml", ".ini", ".txt", ".json", ".yaml", ".yml", ".html", ".rst", ".md")

// sourceLiterals returns the quoted strings in code that look like paths
// to source files, other than self.
func sourceLiterals(code, self string) []string {
	var out []string
	selfKey := fileKey(self)
	for i := 0; i < len(code); i++ {
		q := code[i]
		if q != '\'' && q != '"' {
			continue
		}
		j := strings.IndexByte(code[i+1:], q)
		if j < 0 {
			break
		}
		lit := code[i+1 : i+1+j]
		i += j + 1
		if len(lit) < 3 || len(lit) > 200 || strings.ContainsAny(lit, " \n\t{}%*") || !sourceExts[path.Ext(lit)] {
			continue
		}
		if fileKey(lit) == selfKey {
			continue
		}
		dup := false
		for _, o := range out {
			if o == lit {
				dup = true
			}
		}
		if !dup && len(out) < 8 {
			out = append(out, strings.Clone(lit))
		}
	}
	return out
}
