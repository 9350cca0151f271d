package history_test

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestVisible(t *testing.T) {
	reply := func(stop llm.StopReason) session.Entry {
		return session.Entry{Body: &session.Message{
			Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("partial")}},
			StopReason: stop,
		}}
	}
	tests := []struct {
		name  string
		entry session.Entry
		want  bool
	}{
		{"user prompt", userMsg("hi"), true},
		{"tool result", result("c1", false, "ok"), true},
		{"finished reply", reply(llm.StopEndTurn), true},
		{"reply cut at max tokens", reply(llm.StopMaxTokens), true},
		{"aborted reply", reply("aborted"), false},
		{"failed reply", reply("error"), false},
		{"advisor card", custom("advisor", "run the tests", true), false},
		{"later advisor kind", custom("advisor:summary", "x", true), false},
		{"advisory text as a user message", userMsg(`<advisory severity="concern" guidance="weigh, don't blindly obey">` + "\nstop\n</advisory>"), false},
		{"user message mentioning advisories", userMsg("what did the <advisory> mean?"), true},
		{"aborted marker", custom("aborted", "[Interrupted by user]", true), true},
		{"resume", custom("resume", "continue", true), true},
		{"resume with the advisor's note", custom("resume", "<advisory>\nfix the test\n</advisory>", true), false},
		{"error record (not in context)", custom("error", "model: overloaded", false), false},
		{"notice for the user", custom("notice", "saved", false), false},
		{"hidden plan context", session.Entry{Body: &session.Custom{CustomType: "plan-mode-context", Content: []llm.Block{llm.Text("plan")}, InContext: true}}, true},
		{"compaction", session.Entry{Body: &session.Compaction{Summary: "s"}}, true},
		{"branch summary", session.Entry{Body: &session.BranchSummary{Summary: "s"}}, true},
		{"model change", session.Entry{Body: &session.ModelChange{Model: llm.Ref{Model: "m"}}}, true},
		{"unknown type", session.Entry{Body: &session.Unknown{Type: "bookmark"}}, false},
		{"no body", session.Entry{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := history.Visible(tt.entry); got != tt.want {
				t.Errorf("Visible = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsAdvice(t *testing.T) {
	tests := []struct {
		name  string
		entry session.Entry
		want  bool
	}{
		{"advisor card", custom("advisor", "x", true), true},
		{"advisor card not in context", custom("advisor", "x", false), true},
		{"advisor- kind", custom("advisor-batch", "x", true), true},
		{"a type that only starts with the word", custom("advisorless", "x", true), false},
		{"one advisory", userMsg("<advisory>\nnote\n</advisory>"), true},
		{"two advisories", userMsg("<advisory severity=\"nit\">\na\n</advisory>\n\n<advisory>\nb\n</advisory>\n"), true},
		{"advisory and more text", userMsg("<advisory>\na\n</advisory> and I agree"), false},
		{"text then advisory", userMsg("see: <advisory>\na\n</advisory>"), false},
		{"unclosed advisory", userMsg("<advisory>\na"), false},
		{"a different tag", userMsg("<advisoryx>a</advisoryx>"), false},
		{"assistant quoting an advisory", session.Entry{Body: &session.Message{Message: llm.Message{
			Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("<advisory>\na\n</advisory>")}}}}, false},
		{"blank", userMsg("   "), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := history.IsAdvice(tt.entry); got != tt.want {
				t.Errorf("IsAdvice = %v, want %v", got, tt.want)
			}
		})
	}
}

// The renderer applies the filter itself: an advisor card never reaches
// the output, even when the caller forgot to filter.
func TestRenderDropsAdvice(t *testing.T) {
	secretAdvice := "ADVICE-TEXT-THAT-MUST-NOT-APPEAR"
	entries := []session.Entry{
		userMsg("hello"),
		custom("advisor", secretAdvice, true),
		userMsg("<advisory>\n" + secretAdvice + "\n</advisory>"),
	}
	for _, opts := range []history.Options{{}, history.AdvisorOptions(nil)} {
		if out := history.Render(entries, opts); strings.Contains(out, secretAdvice) {
			t.Errorf("advice rendered:\n%s", out)
		}
	}
	var r history.Renderer
	if out := r.Update(entries[1:], history.AdvisorOptions(nil)); out != "" {
		t.Errorf("an update of advice alone = %q, want none", out)
	}
}
