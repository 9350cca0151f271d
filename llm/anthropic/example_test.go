package anthropic_test

import (
	"context"
	"fmt"
	"log"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
)

func Example() {
	// A scripted server stands in for api.anthropic.com.
	script, err := fakellm.ParseScript("example.yaml", []byte(`
rules:
  - steps:
      - text: "Hello from Claude."
`))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := fakellm.Start(script)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	m, err := anthropic.New(anthropic.Config{
		BaseURL: srv.URL(), // "" for the real API
		APIKey:  "sk-ant-example",
		Model:   "claude-sonnet-4-5",
	})
	if err != nil {
		log.Fatal(err)
	}
	// Retry rate limits and overloads, honouring retry-after.
	model := llm.WithRetry(m, llm.DefaultRetryPolicy)

	resp, err := llm.Accumulate(model.Stream(context.Background(), llm.Request{
		System:   "You are terse.",
		Messages: []llm.Message{llm.UserText("Say hello.")},
	}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Message.Text())
	fmt.Println(resp.StopReason)
	// Output:
	// Hello from Claude.
	// end_turn
}
