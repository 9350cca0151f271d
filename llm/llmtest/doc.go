// Package llmtest is the conformance suite every [llm.Model] adapter
// passes, in the spirit of testing/slogtest.
//
// [Run] starts a fakellm server for each case, scripted to reply the way the
// case needs, builds the adapter under test against it with the [Harness],
// and checks both what the adapter returned and what it sent over the wire:
// plain text, streamed deltas, one and several tool calls, tool results and
// thinking round-tripped, the exact thinking fields each thinking level
// sends under the thinking maps the harness gives ([ThinkingCase]),
// cache-read usage, every error kind, cancellation mid-stream and a
// truncated stream.
//
//	func TestConformance(t *testing.T) {
//		llmtest.Run(t, llmtest.Harness{
//			API: "anthropic",
//			New: func(t *testing.T, baseURL, model string) llm.Model {
//				m, err := anthropic.New(anthropic.Config{BaseURL: baseURL, APIKey: "test", Model: model})
//				if err != nil {
//					t.Fatal(err)
//				}
//				return m
//			},
//		})
//	}
package llmtest
