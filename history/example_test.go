package history_test

import (
	"encoding/json"
	"fmt"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func ExampleRenderer_Update() {
	redactor := history.NewRedactor([]string{"GITHUB_TOKEN=tok-0123456789abcdef"}, nil)
	opts := history.AdvisorOptions(redactor)
	var r history.Renderer

	args, _ := json.Marshal(map[string]any{"command": "git push https://x:tok-0123456789abcdef@github.com/o/r"})
	delta := []session.Entry{
		{Body: &session.Message{Message: llm.UserText("push the branch")}},
		{Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.ToolCall("c1", "bash", args),
		}}, StopReason: llm.StopToolUse}},
		{Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("c1", false, llm.Text("Everything up-to-date")),
		}}}},
		// The advisor's own card is never shown back to it.
		{Body: &session.Custom{CustomType: history.CustomAdvisor, Content: []llm.Block{llm.Text("check CI")}, Display: true, InContext: true}},
	}
	fmt.Print(r.Update(delta, opts))
	// Output:
	// ### Session update
	//
	// **user**:
	// ```
	// push the branch
	// ```
	//
	// **agent**:
	// → bash(git push https://x:[REDACTED:GITHUB_TOKEN]@github.com/o/r) ⇒ ok · 1 line
	// ```
	// Everything up-to-date
	// ```
}

func ExampleRenderer_Update_unchanged() {
	opts := history.AdvisorOptions(nil)
	opts.Context = []history.PrimaryContext{{Kind: "AGENTS.md", Text: "Run go vet before committing."}}
	var r history.Renderer
	r.Update([]session.Entry{{Body: &session.Message{Message: llm.UserText("start")}}}, opts)
	fmt.Print(r.Update([]session.Entry{{Body: &session.Message{Message: llm.UserText("go on")}}}, opts))
	// Output:
	// ### Session update
	//
	// <primary-context kind="AGENTS.md">
	// (unchanged — still in effect)
	// </primary-context>
	//
	// **user**:
	// ```
	// go on
	// ```
}

func ExampleRedactor() {
	r := history.NewRedactor(
		[]string{"HOME=/home/ana", "DB_PASSWORD=Tr0ub4dor&3"},
		map[string]string{"deploy-key": "dk-7f3a9c2e11"},
	)
	fmt.Println(r.Names())
	fmt.Println(r.Redact("login with Tr0ub4dor&3, deploy with dk-7f3a9c2e11 from /home/ana"))
	fmt.Println(r.Redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"))
	fmt.Println(r.Redact("commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 is fine"))
	// Output:
	// [DB_PASSWORD deploy-key]
	// login with [REDACTED:DB_PASSWORD], deploy with [REDACTED:deploy-key] from /home/ana
	// Authorization: Bearer [REDACTED:authorization]
	// commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 is fine
}
