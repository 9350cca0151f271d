package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A follower left to detect the format finds it from a first line longer
// than the bytes it sniffs (a long `claude -p` prompt), once that line is
// written whole, and reads the file as the whole-file reader does.
func TestFollowDetectsALongFirstLine(t *testing.T) {
	data := longPrompt(t, 4*sniffSize)
	first := bytes.IndexByte(data, '\n')
	path := filepath.Join(t.TempDir(), "e263d154.jsonl")
	if err := os.WriteFile(path, data[:first/2], 0o600); err != nil {
		t.Fatal(err)
	}
	fl := Follow(path, "")
	b, err := pollWithin(t, fl, false)
	if err != nil || len(b.Entries) != 0 {
		t.Fatalf("half the first line: %d entries, error %v; want nothing yet", len(b.Entries), err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, settle := range []bool{false, true} {
		b, err := pollWithin(t, fl, settle)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range b.Entries {
			got = append(got, e.ID)
		}
	}
	if fl.Run().Format != FormatClaudeCode {
		t.Errorf("format %q, want %q", fl.Run().Format, FormatClaudeCode)
	}
	want := jlRead(t, data, "e263d154.jsonl", FormatClaudeCode)
	if len(got) == 0 || len(got) != len(want.all()) {
		t.Errorf("followed %d entries, the reader reads %d", len(got), len(want.all()))
	}
}
