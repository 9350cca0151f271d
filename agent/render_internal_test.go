package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestSummaryPrompt(t *testing.T) {
	long := strings.Repeat("x", 3*maxRenderedBlock) + "TAIL"
	entries := []session.Entry{
		{Body: &session.Compaction{Summary: "earlier summary"}},
		{Body: &session.Message{Message: llm.UserText("fix the parser")}},
		{Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Thinking("secret reasoning", "sig"),
			llm.Text("Reading it."),
			llm.ToolCall("c1", "read", json.RawMessage(`{"path":"parser.go"}`)),
		}}}},
		{Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("c1", true, llm.Text(long), llm.Image("image/png", "AAAA")),
		}}}},
		{Body: &session.Custom{CustomType: "advisor", Content: []llm.Block{llm.Text("check the tests")}, InContext: true}},
		{Body: &session.BranchSummary{Summary: "tried the lexer"}},
	}
	got := summaryPrompt(entries, "  keep the file names ")
	for _, want := range []string{
		"<conversation>\n[Summary of the conversation before this point]\nearlier summary\n",
		"[User]\nfix the parser\n",
		"[Agent]\nReading it.\n→ read {\"path\":\"parser.go\"}\n",
		"[Tool error]\nxxx",
		"bytes left out …]\n",
		"TAIL\n[image]\n",
		"[Note: advisor]\ncheck the tests\n",
		"[Summary of an abandoned branch]\ntried the lexer\n",
		"</conversation>\n\nThe user asks the summary to focus on this: keep the file names\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary prompt lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "secret reasoning") || strings.Contains(got, "[User]\n[Tool") {
		t.Errorf("summary prompt shows thinking or labels tool results as the user's:\n%s", got)
	}
	if len(got) > 2*maxRenderedBlock {
		t.Errorf("summary prompt is %d bytes: the long result was not clipped", len(got))
	}
}

func TestClipKeepsRunes(t *testing.T) {
	s := strings.Repeat("é", 100)
	got := clip(s, 51)
	if !strings.HasPrefix(got, strings.Repeat("é", 19)) || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("clip cut a rune: %q", got)
	}
	for _, part := range strings.Split(got, "\n") {
		if !strings.HasPrefix(part, "[") && strings.Trim(part, "é") != "" {
			t.Errorf("clip left a broken rune in %q", part)
		}
	}
}
