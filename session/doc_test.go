package session_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// TestDocExamples keeps docs/session-format.md honest: every JSON example
// in it is a valid header or entry of a known type, and its whole-file
// example reads without error.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/session-format.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(json|jsonl)\n(.*?)```").FindAllSubmatch(doc, -1)
	var examples, files int
	for _, b := range blocks {
		if string(b[1]) == "jsonl" {
			files++
			h, entries, err := session.Read(bytes.NewReader(b[2]), "docs/session-format.md")
			if err != nil || h.Version != session.Version || len(entries) == 0 {
				t.Errorf("whole-file example: %d entries, version %d, %v", len(entries), h.Version, err)
			}
			for _, e := range entries {
				if _, unknown := e.Body.(*session.Unknown); unknown {
					t.Errorf("whole-file example: entry %s has unknown type %q", e.ID, e.Type())
				}
			}
			continue
		}
		examples++
		var line bytes.Buffer
		if err := json.Compact(&line, b[2]); err != nil {
			t.Errorf("example is not JSON: %v\n%s", err, b[2])
			continue
		}
		var probe struct{ Type string }
		json.Unmarshal(line.Bytes(), &probe)
		file := line.String() + "\n"
		if probe.Type != "session" {
			file = `{"type":"session","version":1,"id":"s","created":"2026-11-05T14:03:22.417Z"}` + "\n" + file
		}
		_, entries, err := session.Read(bytes.NewReader([]byte(file)), "example")
		if err != nil {
			if probe.Type != "session" && bytes.Contains([]byte(err.Error()), []byte("not an earlier entry")) {
				// An example cut out of a file: give it its parent.
				file = regexp.MustCompile(`"parentId":"[0-9a-f]+"`).ReplaceAllString(file, `"parentId":null`)
				_, entries, err = session.Read(bytes.NewReader([]byte(file)), "example")
			}
		}
		if err != nil {
			t.Errorf("example does not read: %v\n%s", err, b[2])
			continue
		}
		for _, e := range entries {
			if _, unknown := e.Body.(*session.Unknown); unknown {
				t.Errorf("example has unknown type %q", e.Type())
			}
		}
	}
	if examples < 8 || files != 1 {
		t.Errorf("found %d JSON examples and %d whole files, want at least 8 and 1", examples, files)
	}
}
