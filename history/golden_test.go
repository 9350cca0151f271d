package history_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/session"
)

var update = flag.Bool("update", false, "rewrite the want files of testdata/*.txtar")

// TestGolden renders the session of each testdata/*.txtar archive and
// compares it with the archive's want files. An archive holds:
//
//	options        one setting a line (see goldenOptions)
//	N.jsonl        entries, one a line, in the session file's format but
//	               without id, parentId and timestamp (filled in, chained
//	               across files)
//	N.context.KIND primary context of kind KIND for step N (Options.Context)
//	N.md           the expected output of step N
//
// With "mode render" each N.jsonl is rendered alone with Render; with
// "mode update" the steps go, in order, through one Renderer's Update.
// Every output must also pass checkStructure. go test -update rewrites
// the N.md files.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			opts, mode := goldenOptions(t, fileText(ar, "options"))
			steps := stepsOf(ar)
			if len(steps) == 0 {
				t.Fatal("no N.jsonl files")
			}
			entries := readEntries(t, ar, steps)
			var r history.Renderer
			changed := false
			for _, n := range steps {
				o := opts
				o.Context = contextsOf(ar, n)
				var got string
				switch mode {
				case "render":
					got = history.Render(entries[n], o)
				case "update":
					got = r.Update(entries[n], o)
				default:
					t.Fatalf("unknown mode %q", mode)
				}
				checkStructure(t, got, mode == "update")
				name := n + ".md"
				if *update {
					changed = setFile(ar, name, got) || changed
					continue
				}
				want, ok := lookupFile(ar, name)
				if !ok {
					t.Errorf("%s: missing; run go test -update", name)
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: output differs (-want +got):\n%s", name, diff)
				}
			}
			if changed {
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// goldenOptions reads the options file:
//
//	mode render|update
//	watched | thinking | intent | expand   (the boolean options)
//	advisor                                (AdvisorOptions)
//	max-output N
//	title TEXT
//	types T1,T2                            (PrimaryContextTypes)
//	env NAME=VALUE                         (an environment variable)
//	secret NAME=VALUE                      (an extra secret value)
//
// A Redactor is built when any env or secret line is present, or with the
// line "redact".
func goldenOptions(t *testing.T, text string) (history.Options, string) {
	t.Helper()
	var o history.Options
	mode := "render"
	var env []string
	extra := map[string]string{}
	redact := false
	for _, line := range strings.Split(text, "\n") {
		key, val, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch key {
		case "", "#":
		case "mode":
			mode = val
		case "advisor":
			o = history.AdvisorOptions(nil)
		case "watched":
			o.WatchedRoles = true
		case "thinking":
			o.Thinking = true
		case "intent":
			o.ToolIntent = true
		case "expand":
			o.ExpandPrimaryContext = true
		case "max-output":
			n, err := strconv.Atoi(val)
			if err != nil {
				t.Fatalf("options: max-output: %v", err)
			}
			o.MaxToolOutput = n
		case "title":
			o.Title = val
		case "types":
			o.PrimaryContextTypes = strings.Split(val, ",")
		case "redact":
			redact = true
		case "env":
			env = append(env, val)
			redact = true
		case "secret":
			k, v, _ := strings.Cut(val, "=")
			extra[k] = v
			redact = true
		default:
			t.Fatalf("options: unknown line %q", line)
		}
	}
	if redact {
		o.Redactor = history.NewRedactor(env, extra)
	}
	return o, mode
}

// readEntries parses the steps' entry files as one session, so ids chain
// from one step to the next.
func readEntries(t *testing.T, ar *txtar.Archive, steps []string) map[string][]session.Entry {
	t.Helper()
	var file bytes.Buffer
	file.WriteString(`{"type":"session","version":1,"id":"golden","cwd":"/src/app","created":"2026-11-05T14:00:00.000Z"}` + "\n")
	var counts []int
	id := 0
	for _, n := range steps {
		count := 0
		for _, line := range strings.Split(fileText(ar, n+".jsonl"), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			// Splice the base fields in after the brace, leaving the rest
			// of the line (and the order of its keys) as written.
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "{") || !json.Valid([]byte(line)) {
				t.Fatalf("%s.jsonl: not a JSON object: %s", n, line)
			}
			id++
			base := fmt.Sprintf(`"id":"e%03d","parentId":null,"timestamp":"2026-11-05T14:%02d:%02d.000Z",`, id, id/60, id%60)
			if id > 1 {
				base = strings.Replace(base, "null", fmt.Sprintf(`"e%03d"`, id-1), 1)
			}
			file.WriteString("{" + base + line[1:])
			file.WriteByte('\n')
			count++
		}
		counts = append(counts, count)
	}
	_, all, err := session.Read(&file, "golden")
	if err != nil {
		t.Fatalf("read entries: %v", err)
	}
	out := map[string][]session.Entry{}
	for i, n := range steps {
		out[n], all = all[:counts[i]], all[counts[i]:]
	}
	return out
}

// lookupFile returns the data of the archive's file name.
func lookupFile(ar *txtar.Archive, name string) (string, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// fileText returns the data of the archive's file name, "" when there is none.
func fileText(ar *txtar.Archive, name string) string {
	s, _ := lookupFile(ar, name)
	return s
}

// setFile stores a file, after the step's other files when it is new, and
// reports whether anything changed.
func setFile(ar *txtar.Archive, name, data string) bool {
	for i, f := range ar.Files {
		if f.Name == name {
			ar.Files[i].Data = []byte(data)
			return string(f.Data) != data
		}
	}
	step := strings.TrimSuffix(name, ".md")
	at := len(ar.Files)
	for i, f := range ar.Files {
		if strings.HasPrefix(f.Name, step+".") {
			at = i + 1
		}
	}
	ar.Files = slices.Insert(ar.Files, at, txtar.File{Name: name, Data: []byte(data)})
	return true
}

// stepsOf returns the N of every N.jsonl, in numeric order.
func stepsOf(ar *txtar.Archive) []string {
	var steps []string
	for _, f := range ar.Files {
		if n, ok := strings.CutSuffix(f.Name, ".jsonl"); ok {
			steps = append(steps, n)
		}
	}
	sort.SliceStable(steps, func(i, j int) bool {
		a, _ := strconv.Atoi(steps[i])
		b, _ := strconv.Atoi(steps[j])
		return a < b
	})
	return steps
}

// contextsOf returns step n's N.context.KIND files, in archive order.
func contextsOf(ar *txtar.Archive, n string) []history.PrimaryContext {
	var cs []history.PrimaryContext
	for _, f := range ar.Files {
		if kind, ok := strings.CutPrefix(f.Name, n+".context."); ok {
			cs = append(cs, history.PrimaryContext{Kind: kind, Text: string(f.Data)})
		}
	}
	return cs
}
