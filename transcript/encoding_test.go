package transcript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
)

// encodingSamples are a file of every format the whole-file reader knows.
var encodingSamples = []struct {
	rel, name string
	format    Format
}{
	{"claude-code/recording.jsonl", "e263d154.jsonl", FormatClaudeCode},
	{"codex/rollout.jsonl", "rollout-2025-01-01.jsonl", FormatCodex},
	{"pi/recording.jsonl", "pi.jsonl", FormatPi},
	{"omp/recording.jsonl", "omp.jsonl", FormatPi}, // omp shares pi's reader
	{"vigil/recording.jsonl", "vigil.jsonl", FormatVigil},
	{"swe-agent/calc-fc.traj", "calc-fc.traj", FormatSWEAgent},
	{"mini-swe-agent/calc.traj.json", "calc.traj.json", FormatMiniSWEAgent},
	{"openhands/calc-v1.jsonl", "calc-v1.jsonl", FormatOpenHands},
	{"openhands/calc-state.json", "calc-state.json", FormatOpenHands},
	{"aider/calc.aider.chat.history.md", ".aider.chat.history.md", FormatAider},
}

const bomText = "\ufeff"

// Issue 28: a UTF-8 byte-order mark (as Windows editors and PowerShell's
// Out-File write) made a transcript "not a transcript format vigil
// knows". Every format reads the same with one as without, gzipped too.
func TestReadWithByteOrderMark(t *testing.T) {
	for _, s := range encodingSamples {
		t.Run(s.rel, func(t *testing.T) {
			data := jlTestdata(t, s.rel)
			plain := jlRead(t, data, s.name, s.format)
			if plain.err != nil {
				t.Fatal(plain.err)
			}
			for _, gz := range []bool{false, true} {
				withBOM := append([]byte(bomText), data...)
				if gz {
					withBOM = gzipOf(withBOM)
				}
				got := jlRead(t, withBOM, s.name, s.format)
				if got.err != nil {
					t.Fatalf("gzip %v: %v", gz, got.err)
				}
				if a, b := jlShapes(got.all()), jlShapes(plain.all()); a != b {
					t.Errorf("gzip %v: entries differ from the file's without the mark:\n%s\nwant\n%s", gz, a, b)
				}
				if len(got.runs) != len(plain.runs) || len(got.runs) > 0 && got.runs[0] != plain.runs[0] {
					t.Errorf("gzip %v: runs %+v, want %+v", gz, got.runs, plain.runs)
				}
				if len(got.notes) != len(plain.notes) {
					t.Errorf("gzip %v: notes %v, want %v", gz, got.notes, plain.notes)
				}
			}
		})
	}
}

// utf16Of encodes s as UTF-16 in the byte order given, with a
// byte-order mark or without.
func utf16Of(s string, order binary.AppendByteOrder, bom bool) []byte {
	var out []byte
	if bom {
		out = order.AppendUint16(out, 0xfeff)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = order.AppendUint16(out, u)
	}
	return out
}

// A transcript saved as UTF-16 (with a byte-order mark either way round,
// or without one: ASCII with every other byte NUL) is refused with what
// to do about it, not as an unknown format.
func TestReadUTF16IsExplained(t *testing.T) {
	data := string(jlTestdata(t, "claude-code/recording.jsonl"))
	const want = "s.jsonl is UTF-16; vigil reads UTF-8 transcripts: convert with iconv -f UTF-16 -t UTF-8"
	for _, tt := range []struct {
		name  string
		order binary.AppendByteOrder
		bom   bool
	}{
		{"little endian with BOM", binary.LittleEndian, true},
		{"big endian with BOM", binary.BigEndian, true},
		{"little endian", binary.LittleEndian, false},
		{"big endian", binary.BigEndian, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, gz := range []bool{false, true} {
				in := utf16Of(data, tt.order, tt.bom)
				if gz {
					in = gzipOf(in)
				}
				_, err := NewReader(bytes.NewReader(in), "s.jsonl")
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("gzip %v: NewReader = %v, want it to say %q", gz, err, want)
				}
				if !errors.Is(err, ErrUnknownFormat) {
					t.Errorf("gzip %v: %v is not ErrUnknownFormat: a folder's review would fail on it, not skip it", gz, err)
				}
			}
		})
	}
	// One NUL in a UTF-8 file is no reason to call it UTF-16.
	if _, err := NewReader(strings.NewReader("{\"a\":\"\x00\"}\n"), "n.jsonl"); err != nil && strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("a NUL in UTF-8: %v", err)
	}
}

// The follower reads a file that starts with a byte-order mark as the
// whole-file reader reads it without, line by line and in pieces, and
// refuses a UTF-16 one with the same advice.
func TestFollowWithByteOrderMark(t *testing.T) {
	for _, rec := range followRecordings(t) {
		t.Run(rec.path, func(t *testing.T) {
			data := followData(t, rec.path)
			want := readWhole(data, rec.format)
			withBOM := append([]byte(bomText), data...)
			for _, detect := range []Format{"", rec.format} {
				got, fl := followPieces(t, withBOM, detect, append([]int{1, 2, 3, 4}, lineCuts(withBOM)...), nil)
				checkSame(t, got, fl, want)
			}
		})
	}
	w := newFollowTemp(t, "s.jsonl")
	w.write(utf16Of(string(jlTestdata(t, "claude-code/recording.jsonl")), binary.LittleEndian, true))
	_, err := Follow(w.path, "").Poll()
	if want := "is UTF-16; vigil reads UTF-8 transcripts: convert with iconv -f UTF-16 -t UTF-8"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("following UTF-16: %v, want it to say %q", err, want)
	}
}
