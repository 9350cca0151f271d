package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/internal/review"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcödé and emoji 🙂":    "plain text, ünïcödé and emoji 🙂",
		"\x1b[31mred\x1b[0m":                 `\x1b[31mred\x1b[0m`,
		"\x1b]0;title\a":                     `\x1b]0;title\x07`,
		"a\nb\tc\rd\x00e\x7f":                `a\nb\tc\rd\x00e\x7f`,
		"csi \u009b2J nel \u0085":            `csi \u009b2J nel \u0085`,
		"rtl \u202eevil\u202c \u2066x\u2069": `rtl \u202eevil\u202c \u2066x\u2069`,
		"marks \u200e\u200f\u061c":           `marks \u200e\u200f\u061c`,
		"lines \u2028\u2029":                 `lines \u2028\u2029`,
		"bad \xff\xfe utf-8 \xc3(":           `bad \xff\xfe utf-8 \xc3(`,
		"zero-width joiner \u200d stays":     "zero-width joiner \u200d stays",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapeError(t *testing.T) {
	err := EscapeError(&fs.PathError{Op: "open", Path: "evil\x1b[2J", Err: fs.ErrNotExist})
	if err.Error() != `open evil\x1b[2J: file does not exist` || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v", err)
	}
	if EscapeError(nil) != nil {
		t.Error("nil is not nil")
	}
}

// hostileFile is a review whose every text from the transcript carries
// terminal controls.
func hostileFile() *File {
	const evil = "\x1b]0;pwned\a\x1b[31m\u009b\u202e\xff"
	res := &review.Result{
		File: "evil" + evil + ".jsonl", Format: "vigil",
		Runs: []review.Run{
			{Info: transcript.RunInfo{Index: 0, Task: "task" + evil}, Steps: 3, Findings: []rules.Finding{
				{Detector: "repeated-failure", Severity: rules.Concern, StartStep: 1, EndStep: 3, Message: "`make " + evil + "` failed", Evidence: "out" + evil + "\nnext line"},
			}},
			{Info: transcript.RunInfo{Index: 1, ID: "id" + evil}, Steps: 1},
		},
		Notes: []transcript.Note{{What: `unknown line type "` + evil + `"`, Count: 2, FirstLine: 3}},
		Err:   errors.New("read: line 9: " + evil),
	}
	return &File{Path: res.File, Result: res}
}

func TestTextEscapesControls(t *testing.T) {
	for _, st := range []Style{{}, {Color: true}} {
		var b bytes.Buffer
		if err := WriteText(&b, hostileFile(), st); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if st.Color {
			for _, code := range []string{ansiReset, ansiBold, ansiDim, ansiRed, ansiGreen, ansiYellow, ansiCyan} {
				out = strings.ReplaceAll(out, code, "")
			}
		}
		if strings.ContainsAny(out, "\x1b\a\u009b\u202e") || strings.Contains(out, "\xff") {
			t.Errorf("colour %v: a control reached the text:\n%q", st.Color, b.String())
		}
		for _, want := range []string{`evil\x1b]0;pwned\x07\x1b[31m\u009b\u202e\xff.jsonl: vigil`, `run 1 task\x1b]0;`, `run 2 id\x1b]0;`,
			"`make \\x1b]0;pwned", `evidence: out\x1b]0;pwned\x07\x1b[31m\u009b\u202e\xff next line`, `note: unknown line type "\x1b]0;`, `error: read: line 9: \x1b]0;`} {
			if !strings.Contains(flat(out), want) { // the report's wraps undone
				t.Errorf("colour %v: text lacks %q:\n%s", st.Color, want, out)
			}
		}
	}
	var b bytes.Buffer
	WriteText(&b, &File{Path: "x\x1b[2J", Err: errors.New("open x\x1b[2J: no")}, Style{})
	if got := b.String(); got != `x\x1b[2J: error: open x\x1b[2J: no`+"\n" {
		t.Errorf("got %q", got)
	}
}

func TestSummaryEscapesPaths(t *testing.T) {
	var b bytes.Buffer
	WriteSummary(&b, []Row{RowOf(hostileFile()), RowOf(&File{Path: "gone\x1b[2J", Err: errors.New("no")})}, Skipped{}, Style{})
	if strings.ContainsAny(b.String(), "\x1b\a\u009b\u202e") || !strings.Contains(b.String(), `gone\x1b[2J`) {
		t.Errorf("summary:\n%q", b.String())
	}
}

func TestJSONEscapesControls(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, hostileFile()); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\a\x7f\u009b\u202e") {
		t.Errorf("raw control in JSON:\n%q", b.String())
	}
	// The escapes mean what the raw characters did.
	var back JSONFile
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(back.Findings[0].Message, "\x1b]0;pwned\a\x1b[31m\u009b\u202e") {
		t.Errorf("message %q", back.Findings[0].Message)
	}
}

func TestProgressEscapesName(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, 100)
	p.StartFile("/runs/evil\x1b]0;pwned\a.jsonl")
	out := strings.ReplaceAll(b.String(), "\r\x1b[K", "")
	if strings.ContainsAny(out, "\x1b\a") || !strings.Contains(out, `evil\x1b]0;pwned\x07.jsonl`) {
		t.Errorf("bar %q", b.String())
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;t\a", "\u009b\u202e\xff", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, e)
		}
		if i := unsafeIndex(e); i >= 0 {
			t.Fatalf("Escape(%q) = %q keeps %q", s, e, e[i:])
		}
		if unsafeIndex(s) < 0 && e != s {
			t.Fatalf("Escape(%q) = %q changed a safe text", s, e)
		}
	})
}
