package cli

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

//go:embed demo.yml
var demoScript []byte

type demoCmd struct{}

// demoAPIs are the wire APIs the demo walks through, with fakellm's name
// for each.
var demoAPIs = []struct {
	api  llm.API
	rule string
}{
	{llm.APIAnthropicMessages, "anthropic"},
	{llm.APIOpenAICompletions, "chat"},
	{llm.APIOpenAIResponses, "responses"},
}

func (c *demoCmd) Run(e *env) error {
	base, err := fakellm.ParseScript("demo.yml", demoScript)
	if err != nil {
		return err
	}
	// One copy of the demo rule per API, so each API gets both steps.
	script := &fakellm.Script{}
	for _, a := range demoAPIs {
		r := base.Rules[0]
		r.Name, r.API = "demo-"+a.rule, a.rule
		script.Rules = append(script.Rules, r)
	}
	srv, err := fakellm.Start(script)
	if err != nil {
		return fmt.Errorf("start fakellm: %w", err)
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "vigil demo: a scripted model served by fakellm on %s; no key, no network.\n", srv.URL())

	user := &models.File{Providers: map[string]*models.ProviderConfig{}}
	price := llm.Price{Input: 2, Output: 10, CacheRead: 0.2, CacheWrite: 2.5}
	for _, a := range demoAPIs {
		url := srv.URL()
		if a.api != llm.APIAnthropicMessages {
			url += "/v1"
		}
		user.Providers[string(a.api)] = &models.ProviderConfig{
			BaseURL: url, API: a.api, Auth: "none",
			Models: []models.ModelConfig{{ID: "vigil-demo", Reasoning: true, MaxTokens: 4096, ContextWindow: 200000, Cost: &price}},
		}
	}
	reg := models.New(models.Options{User: user, LookupEnv: e.lookupEnv})
	for _, a := range demoAPIs {
		if err := demoConversation(e, reg, string(a.api)+"/vigil-demo:low"); err != nil {
			return err
		}
	}
	return nil
}

var demoTools = []llm.Tool{{
	Name:        "read",
	Description: "Read a file of the workspace.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
}}

// demoConversation runs one two-turn exchange: the model asks for a tool,
// the demo answers it, the model replies.
func demoConversation(e *env, reg *models.Registry, ref string) error {
	res, err := reg.Resolve(ref)
	if err != nil {
		return err
	}
	model, err := res.Open()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n== %s (%s)\n", res.Info.API, res.Ref())
	req := llm.Request{
		System:   "You are a careful coding agent. Read before you answer.",
		Messages: []llm.Message{llm.UserText("Which module does go.mod declare?")},
		Tools:    demoTools,
	}
	fmt.Fprintln(e.stdout, "user: Which module does go.mod declare?")
	var total llm.Usage
	for turn := 1; turn <= 4; turn++ {
		resp, err := streamTo(e, e.stdout, "assistant: ", model, req)
		if err != nil {
			return fmt.Errorf("%s turn %d: %w", ref, turn, err)
		}
		fmt.Fprintf(e.stdout, "  [turn %d: %s]\n", turn, usageLine(resp.Usage))
		total = total.Add(resp.Usage)
		req.Messages = append(req.Messages, resp.Message)
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			break
		}
		var results []llm.Block
		for _, call := range calls {
			out := "module example.com/demo\n\ngo 1.26\n"
			fmt.Fprintf(e.stdout, "tool %s %s -> %q\n", call.Name, call.Arguments, out)
			results = append(results, llm.ToolResult(call.ID, false, llm.Text(out)))
		}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: results})
	}
	fmt.Fprintf(e.stdout, "total: %s, %s at $2/$10 per million\n", usageLine(total), costLine(res.Info.Price, total))
	return nil
}
