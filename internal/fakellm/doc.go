// Package fakellm is a scripted model server: a real HTTP server on
// 127.0.0.1 that speaks the Anthropic Messages, OpenAI Chat Completions and
// OpenAI Responses wire APIs, so that tests, and agents such as Claude Code
// or Codex, can talk to "a model" with no network and no key.
//
// # Scripts
//
// A [Script] is a list of rules. Each request is answered by the next step
// of the first rule that matches it (by model glob, API and substrings of
// the body) and still has a step to serve; a rule with Repeat serves its
// last step forever. A step holds content (text, thinking, redacted
// thinking, tool calls), a fault, or content shaped by a fault. Scripts are
// written in YAML or JSON and read with [ParseScript] or [LoadScript], which
// reject unknown keys and report errors as FILE:LINE:COL. The format is
// documented with examples in docs/fakellm.md.
//
// When no rule answers, the server replies 500 with an error, in the API's
// own shape, saying why each rule declined, so a failing test says what it
// asked for.
//
// A request whose thinking setting no model of the real API accepts is
// answered 400, naming the field, before any rule is picked: for Anthropic
// an unknown thinking.type, thinking.display or output_config.effort, a
// budget_tokens under 1024 or not under max_tokens, a budget with a type
// other than enabled, a display with a type other than enabled or
// adaptive, a temperature other than 1 with thinking enabled or adaptive;
// for OpenAI
// an unknown reasoning effort. Which settings one model accepts is not
// checked.
//
// # Endpoints
//
//	POST /v1/messages               Anthropic Messages, JSON or SSE
//	POST /v1/messages/count_tokens  {"input_tokens": N}; consumes no step
//	POST /v1/chat/completions       OpenAI Chat Completions, JSON or SSE
//	POST /v1/responses              OpenAI Responses, JSON or SSE
//	GET  /v1/models[/ID]            the models the script names
//
// Anything else is a 404 with a JSON error. Point an Anthropic client at
// [Server.URL] and an OpenAI client at URL()+"/v1".
//
// # Usage
//
// Token counts are simulated at four bytes a token. The prompt is measured
// from a canonical text built from the parsed request (system, tools,
// messages), not from the raw body, so options such as max_tokens or stream
// do not matter. The longest prefix of whole parts (system, tool, message)
// a prompt shares with one of the recent prompts to the same API and model
// is reported as read from the cache. For Anthropic, a
// request holding cache_control writes the rest of its prompt to the cache;
// input_tokens excludes cache reads and writes. OpenAI replies count the
// whole prompt as prompt or input tokens, with cached_tokens as a subset.
// A step's Usage replaces the simulation.
//
// # Concurrency and ordering
//
// A Server answers requests concurrently. Choosing a step and recording the
// request happen together under one lock, so [Server.Requests] lists
// requests in the order their steps were consumed. Each request is logged
// as a JSON line (time, api, method, path, model, stream, rule, rule_index,
// step, status, usage, error, duration_ms) to the writer given with
// [WithLog] when it finishes. [Server.Close] ends delayed and stalled
// replies, closes every connection and returns once every handler has.
package fakellm
