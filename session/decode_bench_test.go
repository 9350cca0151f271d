package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// BenchmarkDecodeEntry decodes a session's entry lines (an assistant's
// tool calls, their results with long output, the user's prompts) in one
// pass and, side by side, in the two passes (base, then the type's own
// members) that decodeEntry takes only for a line that does not decode
// in one.
//
//	go test -run '^$' -bench DecodeEntry -benchmem ./session/
func BenchmarkDecodeEntry(b *testing.B) {
	var lines [][]byte
	var size int64
	t0 := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)
	output := strings.Repeat("ok  \tgithub.com/example/pkg\t0.012s\n\"quoted\" and\ttabs\n", 40)
	for i := range 300 {
		var body Body
		switch i % 3 {
		case 0:
			body = &Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				llm.Text("Running the tests."),
				llm.ToolCall(fmt.Sprintf("call_%d", i), "bash", json.RawMessage(`{"command":"go test ./..."}`)),
			}}, StopReason: llm.StopToolUse, Usage: llm.Usage{Input: 1200, Output: 80}}
		case 1:
			body = &Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{
				llm.ToolResult(fmt.Sprintf("call_%d", i-1), false, llm.Text(output)),
			}}}
		default:
			body = &Message{Message: llm.UserText("Now fix the failing test and run it again.")}
		}
		line, err := encodeEntry(Entry{ID: fmt.Sprintf("e%04d", i), ParentID: fmt.Sprintf("e%04d", i-1), Time: t0.Add(time.Duration(i) * time.Second), Body: body})
		if err != nil {
			b.Fatal(err)
		}
		line = line[:len(line)-1]
		lines = append(lines, line)
		size += int64(len(line))
	}
	for _, c := range []struct {
		name   string
		decode func([]byte) (Entry, error)
	}{{"one-pass", decodeEntry}, {"by-type", decodeEntryByType}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				for _, line := range lines {
					if _, err := c.decode(line); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
