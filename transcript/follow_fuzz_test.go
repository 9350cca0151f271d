package transcript

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzFollow writes arbitrary bytes to a file in arbitrary pieces, as
// Claude Code and as Codex, polling after each piece. chunking gives the
// pieces: each byte a piece of 1 to 64 bytes, with its top bit set when
// the piece is followed by a Settle; what chunking does not cover is the
// last piece. The follower must never panic; with a Settle at the end
// only, it must return what the whole-file reader reads of the complete
// lines; with more, it must still number each step once and lose no
// reply's block.
//
//	go test -run='^$' -fuzz=FuzzFollow ./transcript/
func FuzzFollow(f *testing.F) {
	for _, rec := range followRecordings(f)[:4] {
		lines := jlLines(followData(f, rec.path))
		for i := 0; i+4 <= len(lines); i += 4 {
			f.Add(bytes.Join(lines[i:i+4], nil), []byte{7, 30, 0x85, 2})
		}
	}
	f.Add([]byte(ccfPrompt+ccfCall+ccfResult+ccfThink+ccfText+ccfNext), []byte{60, 60, 0x80 | 60, 60, 60, 0x80 | 60, 60})
	f.Fuzz(func(t *testing.T, data, chunking []byte) {
		for _, format := range []Format{FormatClaudeCode, FormatCodex} {
			fuzzFollow(t, data, chunking, format)
		}
	})
}

func fuzzFollow(t *testing.T, data, chunking []byte, format Format) {
	w := newFollowTemp(t, "fuzz.jsonl")
	fl := Follow(w.path, format)
	var r followed
	settled := false
	rest := data
	for _, c := range chunking {
		if len(rest) == 0 {
			break
		}
		n := min(int(c&0x3f)+1, len(rest))
		w.write(rest[:n])
		rest = rest[n:]
		r.call(t, "Poll", fl.Poll)
		if c&0x80 != 0 {
			r.call(t, "Settle", fl.Settle)
			settled = true
		}
	}
	if len(rest) > 0 || len(data) == 0 {
		w.write(rest)
	}
	r.call(t, "Settle", fl.Settle)
	complete := data[:bytes.LastIndexByte(data, '\n')+1]
	if fl.Offset() != int64(len(complete)) {
		t.Fatalf("%s: offset %d, want %d", format, fl.Offset(), len(complete))
	}
	want := readWhole(complete, format)
	if !settled {
		checkSame(t, r, fl, want)
		return
	}
	checkNumbered(t, r.steps)
	if a, b := replyBlocks(r.entries), replyBlocks(want.entries); !reflect.DeepEqual(a, b) {
		t.Fatalf("%s: reply blocks differ:\n%v\nwant:\n%v", format, a, b)
	}
	if a, b := otherEntries(r.entries), otherEntries(want.entries); !reflect.DeepEqual(a, b) {
		t.Fatalf("%s: other entries differ:\n%s\nwant:\n%s", format, jlShapes(a), jlShapes(b))
	}
}
