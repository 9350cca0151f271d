// Package anthropic adapts vigil's provider-neutral [llm.Model] to the
// Anthropic Messages API, over the official Go SDK.
//
// # Requests
//
// [Model.Stream] turns an [llm.Request] into one streaming POST /v1/messages:
// the system prompt, the messages (text, images as base64, tool calls and
// their results, thinking blocks with their signatures and redacted
// thinking, all sent back unchanged), the tool definitions with their JSON
// schemas, max_tokens and the thinking setting. Empty text blocks, which the
// API rejects, are left out, and so are thinking blocks without a signature
// (reasoning another provider produced), which it cannot verify.
//
// A thinking level becomes what [Config.ThinkingMap] says, in one of two
// styles (see [llm.ThinkingValues] for the values):
//
//   - budget (the default): thinking {type: enabled, budget_tokens: N},
//     by default minimal 1024, low 4096, medium 10000, high 20000, xhigh
//     32000, and nothing for off. Since the budget counts towards
//     max_tokens, max_tokens is raised to the budget plus
//     [Config.MaxOutput] when it would not exceed the budget.
//   - adaptive: thinking {type: adaptive} with output_config.effort, or
//     another thinking type (disabled, between_tools) for the levels the
//     map says; max_tokens is left as it is.
//
// Where thinking is enabled or adaptive, thinking.display is the map's
// Display, by default summarized: the newer Claude models otherwise omit
// the reasoning's text, which vigil's advisor and detectors read. A
// thinking block that comes back with no text (display omitted) keeps its
// signature and is sent back like any other.
//
// A request that names no level, on a model configured with none, sends no
// thinking setting: the model's own default applies. A temperature is only
// sent when the request turns no thinking on, since thinking does not
// accept one.
//
// # Prompt caching
//
// Every request places cache_control breakpoints (ephemeral, the API's
// default five minutes) on the system prompt, on the last tool definition and
// on the last block of the last message: three of the four that Anthropic
// allows. A conversation that only grows, as the advisor's does, therefore
// reads everything up to its previous turn from the cache.
//
// # Replies
//
// The reply is read as server-sent events. Content blocks are numbered in
// the order they first produce an event, so blocks the adapter does not
// surface (server tool calls and their results) leave no gaps. Tool call
// arguments are checked to be valid JSON before [llm.EventToolCallEnd]. The
// usage of message_start and message_delta is merged into one
// [llm.EventUsage], sent just before [llm.EventStop]: Input is Anthropic's
// input_tokens, which already excludes cached tokens. Before those two, the
// adapter reads the end of the body (waiting at most a quarter of a second)
// so that the connection can serve the next call. A reply the caller
// cancels after message_start sends the usage known by then (its prompt
// tokens at least) just before the error, so that what an aborted request
// cost is counted; a reply that broke off sends none.
//
// # Errors
//
// Every failure is an [*llm.Error] naming [Config.ProviderName]: HTTP errors
// by status, with "prompt is too long" as [llm.ContextTooLong] and 529 as
// [llm.Overloaded]; an error event in the middle of the stream by its type
// (overloaded_error, rate_limit_error, api_error, ...); a failed connection
// as [llm.Transport]; a stream that ends early or does not parse as
// [llm.Truncated]. A cancelled context ends the stream with the context's
// error. The SDK's own retries are off: wrap the model in [llm.WithRetry].
//
// The adapter reads no environment variable: the key, base URL and headers
// come from [Config] alone.
package anthropic
