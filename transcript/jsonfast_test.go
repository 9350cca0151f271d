package transcript

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The fast path must change nothing: these tests read the same inputs with
// it and without it (encoding/json alone) and compare everything the
// readers yield.

// readBoth reads data as format f with the fast path on and off, and
// reports how the results differ ("" when they do not).
func readBoth(data []byte, f Format) string {
	return readBothFrom(func() io.Reader { return bytes.NewReader(data) }, f)
}

// readBothFrom is readBoth on what open returns.
func readBothFrom(open func() io.Reader, f Format) string {
	read := func(fast bool) jlResult {
		defer func(old bool) { fastJSON = old }(fastJSON)
		fastJSON = fast
		for _, ft := range formats {
			if ft.name == f {
				rd := &Reader{name: "fuzz", br: bufio.NewReaderSize(open(), sniffSize), format: ft, notes: map[string]*Note{}}
				return jlDrain(rd)
			}
		}
		panic("no format " + f)
	}
	fast, slow := read(true), read(false)
	// Notes of the same line come in no fixed order.
	for _, r := range []jlResult{fast, slow} {
		slices.SortFunc(r.notes, func(a, b Note) int {
			return cmp.Or(cmp.Compare(a.FirstLine, b.FirstLine), strings.Compare(a.What, b.What))
		})
	}
	if fmt.Sprint(fast.err) != fmt.Sprint(slow.err) {
		return fmt.Sprintf("error %v, want %v", fast.err, slow.err)
	}
	if !reflect.DeepEqual(fast.notes, slow.notes) {
		return fmt.Sprintf("notes %v, want %v", fast.notes, slow.notes)
	}
	if !reflect.DeepEqual(fast.runs, slow.runs) {
		return fmt.Sprintf("runs %+v, want %+v", fast.runs, slow.runs)
	}
	if len(fast.entries) != len(slow.entries) {
		return fmt.Sprintf("%d runs of entries, want %d", len(fast.entries), len(slow.entries))
	}
	for r := range fast.entries {
		if len(fast.entries[r]) != len(slow.entries[r]) {
			return fmt.Sprintf("run %d: %d entries, want %d", r, len(fast.entries[r]), len(slow.entries[r]))
		}
		for i := range fast.entries[r] {
			a, b := fast.entries[r][i], slow.entries[r][i]
			if !reflect.DeepEqual(a, b) {
				aj, _ := json.Marshal(a)
				bj, _ := json.Marshal(b)
				return fmt.Sprintf("run %d entry %d:\n got %s %s\nwant %s %s", r, i, jlShape(a), aj, jlShape(b), bj)
			}
		}
	}
	return ""
}

// fastRecordings are the files the fast path is compared on, by format.
var fastRecordings = []struct {
	path   string
	format Format
}{
	{"vigil/recording.jsonl", FormatVigil},
	{"claude-code/recording.jsonl", FormatClaudeCode},
	{"codex/rollout.jsonl", FormatCodex},
	{"pi/recording.jsonl", FormatPi},
	{"omp/recording.jsonl", FormatPi},
}

func TestFastPathRecordings(t *testing.T) {
	for _, rec := range fastRecordings {
		if diff := readBoth(jlTestdata(t, rec.path), rec.format); diff != "" {
			t.Errorf("%s: %s", rec.path, diff)
		}
	}
}

// memberName finds a member's name and the colon after it.
var memberName = regexp.MustCompile(`"([A-Za-z_][A-Za-z_0-9]*)"\s*:`)

// mutation is one changed member of a text: the bytes from start to end
// replaced by parts.
type mutation struct {
	text       []byte
	start, end int
	parts      []string
}

// build returns the changed text.
func (m mutation) build() []byte {
	b := append([]byte(nil), m.text[:m.start]...)
	for _, p := range m.parts {
		b = append(b, p...)
	}
	return append(b, m.text[m.end:]...)
}

// mutations returns variants of line, each changing one member: its name
// in another case or escaped, its value replaced by values of other kinds,
// the member written twice.
func mutations(line []byte) [][]byte {
	var out [][]byte
	for _, m := range mutationsOf(line) {
		out = append(out, m.build())
	}
	return out
}

// mutationsOf returns the changes mutations makes, unbuilt.
func mutationsOf(line []byte) []mutation {
	var out []mutation
	for _, m := range memberName.FindAllSubmatchIndex(line, -1) {
		name := string(line[m[2]:m[3]])
		valStart := m[1]
		dec := json.NewDecoder(bytes.NewReader(line[valStart:]))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			continue
		}
		valEnd := valStart + int(dec.InputOffset())
		value := line[valStart:valEnd]
		with := func(parts ...string) {
			out = append(out, mutation{text: line, start: m[0], end: valEnd, parts: parts})
		}
		member := string(line[m[0]:m[1]])
		upper := strings.ToUpper(name[:1]) + name[1:]
		escaped := `\u00` + fmt.Sprintf("%02x", name[0]) + name[1:]
		with(`"`+upper+`":`, string(value))
		with(`"`+strings.ToUpper(name)+`":`, string(value))
		with(`"`+escaped+`":`, string(value))
		with(member, string(value), ",", member, string(value))
		with(member, string(value), ",", member, "null")
		with(member, "null", ",", member, string(value))
		for _, alt := range []string{`null`, `1.5`, `-7`, `12345678901234567890`, `"x\ud83d\ude00\u00e9\ud800z"`, `"\u0000\"\\\/\b\f\n\r\t"`, "\"caf\xe9\xff\"", `true`, `[]`, `{}`, `[null]`, `[{}]`, `{"a":[1,{"b":null}]}`} {
			with(member, alt)
		}
		// Invalid JSON in the value.
		with(member, string(value), "x")
		with(member, "tru")
		with(member, `"a`+"\x01"+`b"`)
		with(member, `"\x"`)
		with(member, `01`)
		with(member, `1.`)
		with(member, `1e`)
		with(member, `[1,]`)
		with(member, `{"a":1,}`)
	}
	return out
}

var allMutations = flag.Bool("mutations.all", false, "TestFastPathMutations: try every mutation, not a sample")

// TestFastPathMutations compares the fast path with encoding/json on each
// recording with one member of one line changed: a sample of 16 changes
// of each line, or every change of every member with -mutations.all
// (about 100,000 reads, a minute).
func TestFastPathMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rec := range fastRecordings {
		lines := jlLines(jlTestdata(t, rec.path))
		for i, line := range lines {
			muts := mutations(line)
			if !*allMutations {
				rng.Shuffle(len(muts), func(a, b int) { muts[a], muts[b] = muts[b], muts[a] })
				muts = muts[:min(len(muts), 16)]
			}
			for _, mut := range muts {
				// The line with a few before and after it, so that merged
				// and pending entries are compared too.
				data := spliceLine(lines, i, mut, rec.format, 3)
				if diff := readBoth(data, rec.format); diff != "" {
					t.Fatalf("%s line %d changed to\n%s\n%s", rec.path, i+1, mut, diff)
				}
			}
		}
	}
}

// FuzzFastPath compares the fast path with encoding/json on any input, in
// each JSON Lines format.
func FuzzFastPath(f *testing.F) {
	for _, rec := range fastRecordings {
		lines := jlLines(jlTestdata(f, rec.path))
		for i := 0; i+3 <= len(lines); i += 3 {
			f.Add(bytes.Join(lines[i:i+3], nil))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, rec := range fastRecordings {
			if diff := readBoth(data, rec.format); diff != "" {
				t.Fatalf("%s: %s", rec.format, diff)
			}
		}
	})
}

// TestUnquote compares the fast path's strings with encoding/json's on
// random strings of escapes, surrogates, invalid UTF-8 and plain text.
func TestUnquote(t *testing.T) {
	pieces := []string{`\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`, `\u0041`, `\u00e9`, `\ud83d\ude00`,
		`\ud83d`, `\ude00`, `\ud83dx`, `\ud83d\u0041`, `\uDFFF\uD800`, "é", "😀", "\xff", "\xe9", "\xed\xa0\x80",
		"a", "plain text ", "\x7f", `'`, "\u2028"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var sb strings.Builder
		sb.WriteByte('"')
		for range rng.IntN(8) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		sb.WriteByte('"')
		in := []byte(sb.String())
		var want string
		werr := json.Unmarshal(in, &want)
		var d jdec
		d.reset(in)
		got := d.str()
		ok := d.done()
		if ok != (werr == nil) || ok && got != want {
			t.Fatalf("%q: fast %q ok=%v, encoding/json %q err=%v", in, got, ok, want, werr)
		}
		if ok && !utf8.ValidString(got) {
			t.Fatalf("%q: fast gives invalid UTF-8 %q", in, got)
		}
	}
}

// TestValidJSON checks that the fast path accepts no value encoding/json
// refuses, and accepts the ordinary ones it does.
func TestValidJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `""`, `0`, `-0`, `-0.5e+10`, `1E5`, `true`, `false`, `null`, ` {"a" : [ 1 , 2 ] } `,
		`{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `"\x"`, `"\u12"`,
		`"\u12g4"`, "\"\x1f\"", "\"\x7f\"", `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `nul`,
		`truee`, `[` + strings.Repeat(`[`, 300) + strings.Repeat(`]`, 301), "{}\x00", "\ufeff{}", `{} {}`,
		`"a"x`, "\t\r\n[]\t\r\n", "\v[]", `[1,[2,[3,{"x":"y"}]]]`, `{"":""}`,
	}
	for _, c := range cases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%q) = %v, want %v", c, got, want)
		}
		var d jdec
		d.reset([]byte(c))
		d.skip()
		if d.done() && !json.Valid([]byte(c)) {
			t.Errorf("fast path accepts %q", c)
		}
	}
}

// TestParseStampBytes compares the fast time parser with parseStamp.
func TestParseStampBytes(t *testing.T) {
	cases := []string{"", "2026-11-30T01:33:52.344Z", "2026-11-30T01:33:52Z", "2026-11-30T01:33:52.1Z",
		"2026-11-30T01:33:52.123456789Z", "2026-11-30T01:33:52.1234567891Z", "2026-11-30T01:33:52.Z",
		"2026-02-29T00:00:00Z", "2024-02-29T00:00:00Z", "2026-02-28T23:59:59.999Z", "2026-13-01T00:00:00Z",
		"2026-00-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-04-30T24:00:00Z", "2026-04-30T23:60:00Z",
		"2026-04-30T23:59:60Z", "2026-11-30t01:33:52Z", "2026-11-30T01:33:52z", "2026-11-30T01:33:52+01:00",
		"2026-11-30T01:33:52.344+05:30", "2026-02-05T11:24:45.305360", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999Z", "2026-1-30T01:33:52Z", "2026-11-30T01:33:5xZ", "+026-11-30T01:33:52Z",
		"2026-11-30T01:33:52.-1Z", "2026-11-30T01:33:52,5Z", "2026-11-30 01:33:52Z", "2026-11-30T01:33:52.34a4Z"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		t := time.Unix(rng.Int64N(1<<34)-1<<33, rng.Int64N(1e9)).UTC()
		cases = append(cases, t.Format(time.RFC3339Nano), t.Format("2006-01-02T15:04:05.000Z07:00"))
	}
	for _, c := range cases {
		got, want := parseStampBytes([]byte(c)), parseStamp(c)
		if got != want || !reflect.DeepEqual(got, want) {
			t.Errorf("parseStampBytes(%q) = %v, want %v", c, got, want)
		}
	}
}

// docRecordings are the document formats' files the fast path is compared
// on (with json.Decoder when it is off).
var docRecordings = []struct {
	path   string
	format Format
}{
	{"mini-swe-agent/calc.traj.json", FormatMiniSWEAgent},
	{"mini-swe-agent/calc.list.traj.json", FormatMiniSWEAgent},
	{"swe-agent/calc-text.traj", FormatSWEAgent},
	{"swe-agent/calc-fc.traj", FormatSWEAgent},
	{"openhands/calc-chat.json", FormatOpenHands},
	{"openhands/calc-state.json", FormatOpenHands},
	{"openhands/calc-resolver.jsonl", FormatOpenHands},
	{"openhands/calc-v1.jsonl", FormatOpenHands},
}

// TestFastPathDocuments compares the document readers with and without the
// fast path (json.Decoder and encoding/json alone) on each file whole, cut
// at many points, failing to read at many points, and with members
// changed (a sample; all with -mutations.all).
func TestFastPathDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, rec := range docRecordings {
		data := jlTestdata(t, rec.path)
		if diff := readBoth(data, rec.format); diff != "" {
			t.Fatalf("%s: %s", rec.path, diff)
		}
		step := max(1, len(data)/100)
		for cut := 0; cut < len(data); cut += step + rng.IntN(3) {
			if diff := readBoth(data[:cut], rec.format); diff != "" {
				t.Fatalf("%s cut at %d: %s", rec.path, cut, diff)
			}
			if diff := readBothFrom(func() io.Reader { return &failingReader{data: data[:cut], err: errDisk} }, rec.format); diff != "" {
				t.Fatalf("%s failing at %d: %s", rec.path, cut, diff)
			}
		}
		muts := mutationsOf(data)
		if !*allMutations {
			rng.Shuffle(len(muts), func(a, b int) { muts[a], muts[b] = muts[b], muts[a] })
			muts = muts[:min(len(muts), 100)]
		}
		for _, m := range muts {
			mut := m.build()
			if diff := readBoth(mut, rec.format); diff != "" {
				t.Fatalf("%s changed to\n%s\n%s", rec.path, mut, diff)
			}
		}
	}
}

// TestFastPathDocumentShapes compares the document readers with and
// without the fast path on values json.Decoder's token API handles in its
// own way: scalars where a document or an element belongs, numbers too
// large for a float64 in what is skipped, deep nesting, values run
// together.
func TestFastPathDocumentShapes(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	docs := []string{
		`01`, `1x`, `tru`, `"a"x`, `[1e400]`, `{"messages":[],"junk":[1,2,1e400]}`, `{"messages":[],"junk":` + deep + `}`,
		`{"messages":[{"role":"user","content":"x","extra":` + deep + `}]}`,
		`{"messages":[{"role":"user","content":"x"} {"role":"user"}]}`, `{"info":{"exit_status":1e999},"messages":[]}`,
		`{"messages":[{"role":"user","content":"x","extra":{"timestamp":1e999}}]}`, `{"messages":[01]}`, `{"messages":[1 2]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image"}]}],"instance_id":"i"}`,
		`{"trajectory":[{"action":"x"}],"history":[{"role":"user","content":"t","agent":"main"}],"info":{},"environment":` + deep + `}`,
		`{"attempts":[{"history":[{"role":"user","content":"t","agent":"main"}]}, 5],"history":[1e400]}`,
		`[{"source":"user","action":"message","args":{"content":"hi"}}, 1e400]`,
		`{"source":"user","action":"message","args":{"content":"hi"}}{"source":"agent","action":"run","args":{"command":"ls"}} 7 "x"`,
		"{\"source\":\"user\",\n\"action\":\"message\",\"args\":{\"content\":\"hi\"}}\n{\"source\":",
	}
	for _, doc := range docs {
		for _, f := range []Format{FormatMiniSWEAgent, FormatSWEAgent, FormatOpenHands} {
			if diff := readBoth([]byte(doc), f); diff != "" {
				t.Errorf("%s %.80q: %s", f, doc, diff)
			}
		}
	}
}

// FuzzFastPathDocuments compares the document readers with and without the
// fast path on any input.
func FuzzFastPathDocuments(f *testing.F) {
	for _, rec := range docRecordings {
		data := jlTestdata(f, rec.path)
		f.Add(data[:min(len(data), 4000)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ft := range []Format{FormatMiniSWEAgent, FormatSWEAgent, FormatOpenHands} {
			if diff := readBoth(data, ft); diff != "" {
				t.Fatalf("%s: %s", ft, diff)
			}
		}
	})
}

// TestMarshalWithout compares ohFields.without with and without the fast
// path on members of every kind.
func TestMarshalWithout(t *testing.T) {
	objects := []string{
		`{}`, `{"a":1}`, `{"thought":"x","command":"ls -l <dir> && echo \"a&b\"","z":[1, 2 ,{"k" : "v"}],"b":null}`,
		"{\"a\":\"\u2028\u2029 \xe2\x80\xa8\",\"b\":\"\\u2028\",\"c\":\"tab\\t\\\\\\\"\"}",
		`{"keep":true,"security_risk":"low","x y":"1 2"}`, `{"k<":1}`, `{"caf\u00e9":1}`, "{\"\\u00e9\":2}",
		"{\"a\"  :  { \"b\" : [ 1 , \"two words\" , { } , [ ] ] } }",
	}
	for _, o := range objects {
		var f ohFields
		if err := json.Unmarshal([]byte(o), &f); err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		got := f.without("thought", "security_risk")
		fastJSON = false
		want := f.without("thought", "security_risk")
		fastJSON = true
		if !bytes.Equal(got, want) {
			t.Errorf("%s: without = %s, want %s", o, got, want)
		}
	}
}

// TestFastPathVigilLines compares the vigil reader with and without the
// fast path on entry lines the recording lacks: a tool result's details,
// null blocks, members of other types.
func TestFastPathVigilLines(t *testing.T) {
	head := `{"type":"session","version":1,"id":"f5d6a6217b581afc","cwd":"/tmp","created":"2026-11-30T01:42:28.559Z"}` + "\n"
	for _, line := range []string{
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T01:42:28.567Z","message":{"role":"user","content":[{"type":"tool_result","id":"t1","content":[{"type":"text","text":"hi"}]}]},"details":{"exit":1}}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T01:42:28.567Z","message":{"role":"user","content":[]},"details":null}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T01:42:28.567Z","message":{"role":"user","content":[null,{"type":"text","text":"x","content":[null]}]}}`,
		`{"type":"custom","id":"a","parentId":null,"timestamp":"2026-11-30T01:42:28.567Z","customType":"x","content":[null],"message":{"role":"user"}}`,
		`{"type":"compaction","id":"a","parentId":null,"timestamp":"2026-11-30T01:42:28.567Z","summary":"s","tokensBefore":null,"details":[1]}`,
	} {
		if diff := readBoth([]byte(head+line+"\n"), FormatVigil); diff != "" {
			t.Errorf("%s\n%s", line, diff)
		}
	}
}

// listStart finds where a member's list begins.
var listStart = regexp.MustCompile(`:\s*\[`)

// listMutations returns variants of text, each with one list given a
// first element of another kind: null, a number, an empty object or
// list, a string, blocks with a null member. The generated decoders read
// such an element as encoding/json does (null is the zero value) where
// the hand-written ones gave up.
func listMutations(text []byte) [][]byte {
	var out [][]byte
	for _, m := range listStart.FindAllIndex(text, -1) {
		at := m[1]
		for _, el := range []string{"null", "5", "{}", "[]", `"s"`, `{"type":null}`, `{"content":[null]}`} {
			if at < len(text) && text[at] != ']' {
				el += ","
			}
			b := append(append(append([]byte(nil), text[:at]...), el...), text[at:]...)
			out = append(out, b)
		}
	}
	return out
}

// TestFastPathListMutations compares the readers with and without the
// fast path on the recordings with a list's elements changed.
func TestFastPathListMutations(t *testing.T) {
	for _, rec := range fastRecordings {
		lines := jlLines(jlTestdata(t, rec.path))
		for i, line := range lines {
			for _, mut := range listMutations(line) {
				data := spliceLine(lines, i, mut, rec.format, 2)
				if diff := readBoth(data, rec.format); diff != "" {
					t.Fatalf("%s line %d changed to\n%s\n%s", rec.path, i+1, mut, diff)
				}
			}
		}
	}
	for _, rec := range docRecordings {
		for _, mut := range listMutations(jlTestdata(t, rec.path)) {
			if diff := readBoth(mut, rec.format); diff != "" {
				t.Fatalf("%s changed to\n%s\n%s", rec.path, mut, diff)
			}
		}
	}
}

// spliceLine returns the lines around line i, radius on either side, with
// line i replaced by mut, after the header lines a reader of format needs
// first (vigil's and pi's session header, and pi's title line).
func spliceLine(lines [][]byte, i int, mut []byte, format Format, radius int) []byte {
	var data []byte
	lo, hi := max(0, i-radius), min(len(lines), i+radius)
	if format == FormatVigil || format == FormatPi {
		lo = max(lo, 1)
		data = append(data, lines[0]...)
		if format == FormatPi && bytes.Contains(lines[0], []byte(`"title"`)) {
			lo = max(lo, 2)
			data = append(data, lines[1]...)
		}
	}
	for j := lo; j < hi; j++ {
		if j == i {
			data = append(data, mut...)
			if !bytes.HasSuffix(mut, []byte("\n")) {
				data = append(data, '\n')
			}
			continue
		}
		data = append(data, lines[j]...)
	}
	return data
}
