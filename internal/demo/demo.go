// Package demo is what vigil demo plays with no key and no network: a
// scripted session in which an agent goes off course and its advisor
// steps in (the project it works on, its fakellm script, a narration for
// readers without a terminal), and the walk of one exchange through each
// wire API vigil speaks.
package demo

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/streamout"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// advisorScript is the session the demo plays: an agent that goes off
// course and the advisor that steps in.
//
//go:embed advisor.yml
var advisorScript []byte

// wireScript is what the wire walk-through plays on each wire API.
//
//go:embed wire.yml
var wireScript []byte

// AdvisorScript is the fakellm script of the demo's session.
func AdvisorScript() *fakellm.Script { return mustScript(advisorScript, "advisor.yml") }

// Prompt is the user's request in the demo.
const Prompt = "TestDiscount fails. Make it pass."

// projectFiles are the scratch project the demo's agent works in.
var projectFiles = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.24\n",
	"discount.go": `package shop

// Discount returns price less pct percent.
func Discount(price, pct float64) float64 {
	return price - pct
}
`,
	"discount_test.go": `package shop

import "testing"

func TestDiscount(t *testing.T) {
	got := Discount(200, 10)
	if got != 180 {
		t.Errorf("10%% off 200: got %v, want 180", got)
	}
}
`,
}

// Setup writes the demo's agent folder (models, settings) and its
// project under scratch, and returns the project's folder.
func Setup(scratch, url string) (string, error) {
	agentDir := filepath.Join(scratch, "agent")
	work := filepath.Join(scratch, "shop")
	for _, d := range []string{agentDir, filepath.Join(work, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("make the demo's folders: %w", err)
		}
	}
	files := map[string]string{
		filepath.Join(agentDir, "models.yml"): "providers:\n  demo:\n    baseUrl: " + url + "\n    api: anthropic-messages\n    auth: none\n    models:\n" +
			"      - {id: agent, contextWindow: 200000, maxTokens: 4096, cost: {input: 3, output: 15}}\n" +
			"      - {id: advisor, contextWindow: 200000, maxTokens: 4096, cost: {input: 1, output: 5}}\n",
		// Each step waits for its review, so the note lands in the
		// agent's next request, as the script expects.
		filepath.Join(agentDir, "config.yml"): "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n",
	}
	for name, text := range projectFiles {
		files[filepath.Join(work, name)] = text
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			return "", fmt.Errorf("write the demo's %s: %w", filepath.Base(path), err)
		}
	}
	return work, nil
}

// Narrate prints the demo's session to w as it happens, for a reader
// without a terminal: the agent's words, its tool calls and the advisor's
// notes.
func Narrate(w io.Writer, ev agent.Event) {
	switch ev.Type {
	case agent.EventMessageEnd:
		if m, ok := entryMessage(ev.Entry); ok {
			if text := strings.TrimSpace(m.Text()); text != "" {
				fmt.Fprintf(w, "\nagent: %s\n", text)
			}
		}
	case agent.EventToolStart:
		fmt.Fprintf(w, "  tool %s %s\n", ev.Tool, ev.Arguments)
	case agent.EventToolEnd:
		if ev.IsError {
			fmt.Fprintf(w, "  failed: %s\n", firstLineOf(ev.Summary))
		}
	case agent.EventCustomAppended, agent.EventInjectionDelivered, agent.EventSteerDelivered:
		if ev.Entry == nil {
			return
		}
		c, ok := ev.Entry.Body.(*session.Custom)
		if !ok || !agent.IsAdvisorNote(c.CustomType) {
			return
		}
		for _, n := range agent.ParseAdvisories(llm.Message{Content: c.Content}.Text()) {
			fmt.Fprintf(w, "\nadvisor · %s: %s\n", orDefault(n.Severity, "note"), n.Body)
		}
	}
}

func entryMessage(en *session.Entry) (llm.Message, bool) {
	if en == nil {
		return llm.Message{}, false
	}
	m, ok := en.Body.(*session.Message)
	if !ok || m.Message.Role != llm.RoleAssistant {
		return llm.Message{}, false
	}
	return m.Message, true
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// mustScript parses a script embedded in the binary; a bad one is a bug
// of the build, caught by the demo's tests.
func mustScript(data []byte, name string) *fakellm.Script {
	s, err := fakellm.ParseScript(name, data)
	if err != nil {
		panic(err)
	}
	return s
}

// demoAPIs are the wire APIs the wire demo walks through, with fakellm's
// name for each.
var demoAPIs = []struct {
	api  llm.API
	rule string
}{
	{llm.APIAnthropicMessages, "anthropic"},
	{llm.APIOpenAICompletions, "chat"},
	{llm.APIOpenAIResponses, "responses"},
}

// Wire streams the same two-turn exchange through every wire API, to w;
// lookupEnv stands for the environment the models are resolved in.
func Wire(ctx context.Context, w io.Writer, lookupEnv func(string) (string, bool)) error {
	base := mustScript(wireScript, "wire.yml")
	if len(base.Rules) == 0 {
		return errors.New("wire.yml has no rule")
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
	fmt.Fprintf(w, "vigil demo: a scripted model served by fakellm on %s; no key, no network.\n", srv.URL())

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
	reg := models.New(models.Options{User: user, LookupEnv: lookupEnv})
	for _, a := range demoAPIs {
		if err := conversation(ctx, w, reg, string(a.api)+"/vigil-demo:low"); err != nil {
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

// conversation runs one two-turn exchange: the model asks for a tool, the
// demo answers it, the model replies.
func conversation(ctx context.Context, w io.Writer, reg *models.Registry, ref string) error {
	res, err := reg.Resolve(ref)
	if err != nil {
		return err
	}
	model, err := res.Open()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== %s (%s)\n", res.Info.API, res.Ref())
	req := llm.Request{
		System:   "You are a careful coding agent. Read before you answer.",
		Messages: []llm.Message{llm.UserText("Which module does go.mod declare?")},
		Tools:    demoTools,
	}
	fmt.Fprintln(w, "user: Which module does go.mod declare?")
	var total llm.Usage
	for turn := 1; turn <= 4; turn++ {
		resp, err := streamout.Stream(ctx, w, w, "assistant: ", model, req)
		if err != nil {
			return fmt.Errorf("%s turn %d: %w", ref, turn, err)
		}
		fmt.Fprintf(w, "  [turn %d: %s]\n", turn, streamout.Usage(resp.Usage))
		total = total.Add(resp.Usage)
		req.Messages = append(req.Messages, resp.Message)
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			break
		}
		var results []llm.Block
		for _, call := range calls {
			out := "module example.com/demo\n\ngo 1.26\n"
			fmt.Fprintf(w, "tool %s %s -> %q\n", call.Name, call.Arguments, out)
			results = append(results, llm.ToolResult(call.ID, false, llm.Text(out)))
		}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: results})
	}
	fmt.Fprintf(w, "total: %s, %s at $2/$10 per million\n", streamout.Usage(total), streamout.Cost(res.Info.Price, total))
	return nil
}
