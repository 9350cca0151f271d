package history_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ar := parseTxtar(data)
			opts, mode := goldenOptions(t, ar.get("options"))
			steps := ar.steps()
			if len(steps) == 0 {
				t.Fatal("no N.jsonl files")
			}
			entries := readEntries(t, ar, steps)
			var r history.Renderer
			changed := false
			for _, n := range steps {
				o := opts
				o.Context = ar.contexts(n)
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
					changed = ar.set(name, got) || changed
					continue
				}
				want, ok := ar.lookup(name)
				if !ok {
					t.Errorf("%s: missing; run go test -update", name)
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: output differs (-want +got):\n%s", name, diff)
				}
			}
			if changed {
				if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
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
func readEntries(t *testing.T, ar *txtar, steps []string) map[string][]session.Entry {
	t.Helper()
	var file bytes.Buffer
	file.WriteString(`{"type":"session","version":1,"id":"golden","cwd":"/src/app","created":"2026-11-05T14:00:00.000Z"}` + "\n")
	var counts []int
	id := 0
	for _, n := range steps {
		count := 0
		for _, line := range strings.Split(ar.get(n+".jsonl"), "\n") {
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

// txtar is a minimal reader and writer of the txtar format (a comment,
// then files each opened by a "-- name --" line), so the tests need no
// module beyond the project's.
type txtar struct {
	comment string
	files   []txtarFile
}

type txtarFile struct {
	name, data string
}

func parseTxtar(data []byte) *txtar {
	ar := &txtar{}
	var cur *txtarFile
	var sb strings.Builder
	flush := func() {
		if cur == nil {
			ar.comment = sb.String()
		} else {
			cur.data = sb.String()
			ar.files = append(ar.files, *cur)
		}
		sb.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) >= 6 {
			flush()
			cur = &txtarFile{name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])}
			continue
		}
		sb.WriteString(line)
	}
	flush()
	return ar
}

func (ar *txtar) format() []byte {
	var b bytes.Buffer
	b.WriteString(ar.comment)
	for _, f := range ar.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.WriteString(f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func (ar *txtar) lookup(name string) (string, bool) {
	for _, f := range ar.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

func (ar *txtar) get(name string) string {
	s, _ := ar.lookup(name)
	return s
}

// set stores a file, after the step's other files when it is new, and
// reports whether anything changed.
func (ar *txtar) set(name, data string) bool {
	for i, f := range ar.files {
		if f.name == name {
			ar.files[i].data = data
			return f.data != data
		}
	}
	step := strings.TrimSuffix(name, ".md")
	at := len(ar.files)
	for i, f := range ar.files {
		if strings.HasPrefix(f.name, step+".") {
			at = i + 1
		}
	}
	ar.files = append(ar.files[:at], append([]txtarFile{{name, data}}, ar.files[at:]...)...)
	return true
}

// steps returns the N of every N.jsonl, in numeric order.
func (ar *txtar) steps() []string {
	var steps []string
	for _, f := range ar.files {
		if n, ok := strings.CutSuffix(f.name, ".jsonl"); ok {
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

// contexts returns step n's N.context.KIND files, in archive order.
func (ar *txtar) contexts(n string) []history.PrimaryContext {
	var cs []history.PrimaryContext
	for _, f := range ar.files {
		if kind, ok := strings.CutPrefix(f.name, n+".context."); ok {
			cs = append(cs, history.PrimaryContext{Kind: kind, Text: f.data})
		}
	}
	return cs
}
