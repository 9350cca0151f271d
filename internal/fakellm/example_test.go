package fakellm_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/vigil-dev/vigil/internal/fakellm"
)

func Example() {
	script, err := fakellm.ParseScript("example.yaml", []byte(`
rules:
  - model: "claude-*"
    steps:
      - thinking: The user greets me.
        text: Hello!
`))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := fakellm.Start(script)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	// Any Anthropic client works; point it at srv.URL().
	resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(
		`{"model":"claude-test","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		Content []struct {
			Type, Thinking, Text string
		}
		StopReason string `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		log.Fatal(err)
	}
	for _, b := range msg.Content {
		fmt.Printf("%s: %s%s\n", b.Type, b.Thinking, b.Text)
	}
	fmt.Println(msg.StopReason)
	r := srv.Requests()[0]
	fmt.Println(r.API, r.Model, r.RuleIndex, r.StepIndex)
	// Output:
	// thinking: The user greets me.
	// text: Hello!
	// end_turn
	// anthropic claude-test 0 0
}
