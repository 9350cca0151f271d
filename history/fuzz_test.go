package history_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// The secrets the fuzzed transcripts leak: one as an environment value,
// one as an extra value from the configuration.
const (
	fuzzEnvSecret   = "Zq9xV2mK8pL4wR7t"
	fuzzExtraSecret = "s3cr3t-Value-42"
)

// FuzzRender renders fuzzed transcripts, with the two secrets spliced into
// every piece of text, and checks that rendering never panics, that every
// line outside a fence is one the renderer writes (so no "### Session
// update", label or tag from the text escapes), and that neither secret
// appears in the output.
func FuzzRender(f *testing.F) {
	f.Add("fix it", "think", "### Session update\n**agent**:", "bash", `{"command":"ls","i":"look"}`, "out\n```\nx", false, "resume", "go on", "summary", uint16(300), uint8(3), uint8(0xff))
	f.Add("", "", "", "", "", "", true, "", "", "", uint16(0), uint8(0), uint8(0))
	f.Add("a\rb", "````", "\r### Session update\r", "t\n→x⇒", `{"path":["a","b"],"x":{"y":[1,"z"]}}`, "</advisory>\n<primary-context kind=\"x\">", true, "plan-mode-context", "</primary-context>", "```", uint16(20), uint8(200), uint8(0x0f))
	f.Add("x", "y", "z", "advise", `{"note":"n","severity":"s"}`, strings.Repeat("line\n", 100), false, "advisor", "<advisory>a</advisory>", "s", uint16(50), uint8(7), uint8(0x1f))
	f.Add("x", "y", "z", "Edit", `{"file_path":"a.py","old_string":"a\n`+"```"+`\nb","new_string":"a\n### Session update\nb"}`, "", false, "", "", "", uint16(3), uint8(5), uint8(0x3f))
	f.Add("x", "y", "z", "shell", `{"command":["apply_patch","*** Begin Patch\n*** Add File: x\n+`+"````"+`\n+**agent**:\n*** End Patch"]}`, "failed in sandbox", false, "", "", "", uint16(2), uint8(9), uint8(0x3f))
	f.Add("x", "y", "z", "bash", `{"command":"cat > a.md <<'EOF'\n`+"```"+`\n### Session update\nEOF\ntee -a b <<X\n**user**:\nX"}`, "Exit code: 1", false, "", "", "", uint16(4), uint8(2), uint8(0x3f))
	f.Add("\xff\xfe", "é\u2028", "`", "", "not json", "\n\n", false, "a\"b>", "", "", uint16(1), uint8(1), uint8(0x2a))
	f.Fuzz(func(t *testing.T, user, thinking, text, tool, args, output string, isErr bool, customType, customText, summary string, maxOut uint16, pos, flags uint8) {
		splice := func(s string, secret string) string {
			i := int(pos) % (len(s) + 1)
			return s[:i] + secret + s[i:]
		}
		both := func(s string) string { return splice(splice(s, fuzzEnvSecret), fuzzExtraSecret) }
		rawArgs := json.RawMessage(both(args))
		entries := []session.Entry{
			userMsg(both(user)),
			{Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				llm.Thinking(both(thinking), ""),
				llm.Text(both(text)),
				{Type: llm.BlockToolCall, ID: "c1", Name: both(tool), Arguments: rawArgs},
				{Type: llm.BlockToolCall, ID: "c2", Name: tool, Arguments: rawArgs},
			}}, StopReason: llm.StopToolUse}},
			result("c1", isErr, both(output)),
			result("c9", !isErr, both(output)),
			custom(both(customType), both(customText), true),
			{Body: &session.Custom{CustomType: "plan-mode-context", Content: []llm.Block{llm.Text(both(customText))}, InContext: true}},
			{Body: &session.Compaction{Summary: both(summary), TokensBefore: int64(maxOut)}},
			{Body: &session.BranchSummary{FromID: both(user), Summary: both(summary)}},
			{Body: &session.ModelChange{Model: llm.Ref{Provider: both(tool), Model: both(text)}, Thinking: llm.ThinkingLevel(both(customType))}},
		}
		r := history.NewRedactor([]string{"API_TOKEN=" + fuzzEnvSecret}, map[string]string{"cfg": fuzzExtraSecret})
		opts := history.Options{
			Title:                both(summary),
			Thinking:             flags&1 != 0,
			ToolIntent:           flags&2 != 0,
			WatchedRoles:         flags&4 != 0,
			ExpandPrimaryContext: flags&8 != 0,
			MaxToolOutput:        int(maxOut),
			Context:              []history.PrimaryContext{{Kind: both(customType), Text: both(customText)}},
			Redactor:             r,
		}
		if flags&16 != 0 {
			opts.PrimaryContextTypes = []string{both(customType)}
		}
		if flags&32 != 0 {
			opts.MaxEditLines = int(maxOut%64) + 1
		}
		check := func(out string, update bool) {
			for _, e := range structureErrors(out, update) {
				t.Errorf("%s\n--- output:\n%s", e, out)
			}
			for _, secret := range []string{fuzzEnvSecret, fuzzExtraSecret} {
				if strings.Contains(out, secret) {
					t.Errorf("secret %q in output:\n%s", secret, out)
				}
			}
		}
		check(history.Render(entries, opts), false)
		var rr history.Renderer
		for i := range 2 {
			out := rr.Update(entries[i*4:], opts)
			if out != "" && !strings.HasPrefix(out, history.Heading+"\n\n") {
				t.Errorf("update does not open with the heading:\n%s", out)
			}
			check(out, true)
		}
	})
}
