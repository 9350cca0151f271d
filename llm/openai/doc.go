// Package openai adapts [llm.Model] to OpenAI's wire APIs over the official
// SDK, github.com/openai/openai-go/v3.
//
// One [Model] speaks one of two APIs, chosen by [Config].API:
//
//   - Chat Completions (llm.APIOpenAICompletions, the default), which OpenAI
//     and every compatible server speaks: Ollama, vLLM, llama.cpp, LM Studio,
//     OpenRouter. Point Config.BaseURL at the server's /v1.
//   - Responses (llm.APIOpenAIResponses), for OpenAI itself.
//
// The adapter never reads the environment (no OPENAI_API_KEY or
// OPENAI_BASE_URL) and never retries: wrap it in [llm.WithRetry].
//
// # Chat Completions
//
// Requests always stream, with stream_options.include_usage. The system
// prompt is a system message; an assistant turn is one message with its
// text and tool_calls; each tool result becomes a tool message with its
// tool_call_id. A tool message holds only text, so images a tool returned
// travel in one user message after the batch of tool messages, each set
// introduced by a line naming its call, and the tool message says they are
// there. User images are image_url parts holding data URLs. Neither API
// has an error flag for a tool result: a failed tool's text is sent as it
// is, and should say that it failed.
//
// Thinking blocks are not sent back: Chat Completions has no field for
// them. Reasoning that a server streams as reasoning_content (DeepSeek,
// vLLM, llama.cpp) or reasoning (OpenRouter, Ollama) arrives as thinking
// events, ended by an EventThinkingEnd without a signature.
//
// Tool-call deltas are matched by their index and may interleave; each call
// becomes a block in the order it first appears, and every call is ended,
// with its arguments checked to be JSON ({} when empty), when the
// finish_reason arrives. A reply whose arguments do not parse fails as
// [llm.Truncated], except after finish_reason "length", where the cut-off
// call is left open and [llm.Accumulate] drops it.
//
// A reply is complete once it has a finish_reason and then usage or the
// [DONE] line; anything shorter is [llm.Truncated].
//
// # Responses
//
// Requests stream with store: false, so each carries the whole
// conversation. When the model reasons (Config.Reasoning) the request
// includes reasoning.encrypted_content, and a thinking block's Signature
// holds its reasoning item (id, encrypted content and summary, as a small
// JSON object) so that the next request sends the item back unchanged.
// Reasoning summary deltas arrive as thinking deltas. Tools are function
// tools with strict: false; tool results are function_call_output items,
// which may hold images.
//
// # Reasoning effort
//
// When Config.Reasoning is set, the thinking level (Request.Thinking, else
// Config.Thinking) is sent as the reasoning effort [Config.ThinkingMap]
// gives it: by default the level's own name (minimal, low, medium, high,
// xhigh) and no effort for off; otherwise what the map says, such as none
// for off, max for xhigh, or low for minimal on the models that reject
// minimal. A model that does not reason sends no effort, and so does a
// level the map sends "default" for.
//
// # Usage
//
// Both APIs count cached prompt tokens inside the prompt total; the adapter
// reports [llm.Usage] with Input = prompt − cache reads − cache writes, so
// the four counts never overlap.
//
// # Errors
//
// Every failure is an [*llm.Error] naming Config.ProviderName: its kind
// from the HTTP status, or [llm.ContextTooLong] when the server says the
// prompt does not fit (code context_length_exceeded, or a message about the
// maximum context length); RetryAfter from retry-after-ms or retry-after.
// Errors reported inside a stream (a Chat error chunk, a Responses
// response.failed or error event) are classified by their code. A request
// that never got an answer is [llm.Transport]. Cancelling the context ends
// the stream at once with the context's error.
package openai
