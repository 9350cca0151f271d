package openai_test

import (
	"context"
	"fmt"
	"log"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/openai"
)

// A Model for a local OpenAI-compatible server (here fakellm standing in
// for Ollama or vLLM), wrapped in retries and read whole.
func Example() {
	script, err := fakellm.ParseScript("example", []byte(`
rules:
  - steps:
      - thinking: "A greeting."
        text: "Hello!"
`))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := fakellm.Start(script)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	m, err := openai.New(openai.Config{
		BaseURL: srv.URL() + "/v1", // for Ollama: http://127.0.0.1:11434/v1
		Model:   "qwen3:8b",
	})
	if err != nil {
		log.Fatal(err)
	}
	model := llm.WithRetry(m, llm.DefaultRetryPolicy)
	resp, err := llm.Accumulate(model.Stream(context.Background(), llm.Request{
		System:   "Be brief.",
		Messages: []llm.Message{llm.UserText("Say hello.")},
	}))
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range resp.Message.Content {
		fmt.Printf("%s: %s\n", b.Type, b.Text)
	}
	fmt.Println("stop:", resp.StopReason)
	// Output:
	// thinking: A greeting.
	// text: Hello!
	// stop: end_turn
}
