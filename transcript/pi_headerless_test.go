package transcript

import "testing"

// TestPiWithoutHeader: a pi session file whose session header line is
// missing (cut off, or the file copied from its second line) is still
// pi's, read from its entries with a note that the header is missing.
func TestPiWithoutHeader(t *testing.T) {
	const file = `{"type":"model_change","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:00.000Z","provider":"fake","modelId":"m"}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"run ls"}],"timestamp":1}}
{"type":"message","id":"c","parentId":"b","timestamp":"2026-11-30T01:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"ls"}}],"provider":"fake","model":"m","stopReason":"toolUse","timestamp":2}}
{"type":"message","id":"d","parentId":"c","timestamp":"2026-11-30T01:00:03.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"a.txt"}],"isError":false,"timestamp":3}}
`
	for _, tc := range []struct{ name, file string }{
		{"from a model change", file},
		{"from a message", file[len(`{"type":"model_change","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:00.000Z","provider":"fake","modelId":"m"}`)+1:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := jlRead(t, []byte(tc.file), "s.jsonl", FormatPi)
			if res.err != nil || len(res.runs) != 1 || res.runs[0].Format != FormatPi {
				t.Fatalf("err %v, runs %+v; want one pi run", res.err, res.runs)
			}
			if got, want := jlShapes(res.all()), "user: run ls\nassistant: call bash(t1)\nresult t1\n"; got != want && got != "model fake/m\n"+want {
				t.Errorf("entries:\n%s\nwant:\n%s", got, want)
			}
			if n, ok := res.note(piNoHeader); !ok || n.FirstLine != 1 {
				t.Errorf("notes %+v, want %q at line 1", res.notes, piNoHeader)
			}
			if res.runs[0].Started.IsZero() {
				t.Errorf("run has no start time; want the first entry's")
			}
		})
	}
}

// TestPiWithoutHeaderLeavesOthersAlone: entry lines of other formats
// are not taken for a pi session without its header.
func TestPiWithoutHeaderLeavesOthersAlone(t *testing.T) {
	for _, head := range []string{
		`{"type":"message","id":"a","timestamp":"2026-11-30T01:00:00.000Z","message":{"role":"user","content":"x"}}`, // no parentId
		`{"type":"user","uuid":"a","parentUuid":null,"timestamp":"2026-11-30T01:00:00.000Z","message":{"role":"user","content":"x"}}`,
		`{"type":"hologram","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:00.000Z"}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:00.000Z","message":{"role":"user","content":[]}}`, // vigil's
		`{"type":"model_change","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:00.000Z","model":"fake/m"}`,
	} {
		if sniffPi([]byte(head+"\n"), "s.jsonl") {
			t.Errorf("sniffPi(%s) = true", head)
		}
	}
}
