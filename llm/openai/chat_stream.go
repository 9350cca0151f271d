package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/vigil-dev/vigil/llm"
)

// streamChat runs one Chat Completions request and yields its events.
func (m *Model) streamChat(ctx context.Context, req llm.Request, yield func(llm.Event, error) bool) {
	params, err := m.chatParams(req)
	if err != nil {
		yield(llm.Event{}, m.requestError(err))
		return
	}
	var res *http.Response
	var done doneWatcher
	stream := m.chat.NewStreaming(ctx, params, option.WithResponseInto(&res), option.WithMiddleware(done.middleware))
	defer stream.Close()

	s := chatStream{yield: yield, provider: m.cfg.ProviderName, text: -1, thinking: -1}
	for stream.Next() {
		if err := ctx.Err(); err != nil {
			yield(llm.Event{}, err)
			return
		}
		c := stream.Current()
		if !s.chunk(&c) {
			return
		}
		if s.err != nil {
			yield(llm.Event{}, s.err)
			return
		}
	}
	if err := stream.Err(); err != nil {
		yield(llm.Event{}, m.streamError(ctx, err, res))
		return
	}
	if err := ctx.Err(); err != nil {
		yield(llm.Event{}, err)
		return
	}
	switch {
	case s.finish == "":
		yield(llm.Event{}, &llm.Error{Kind: llm.Truncated, Provider: m.cfg.ProviderName, Message: "stream ended before a finish_reason"})
		return
	case !s.sawUsage && !done.seen():
		// With include_usage the usage chunk comes after finish_reason, then
		// [DONE]; a server that sends neither was cut off after the finish.
		yield(llm.Event{}, &llm.Error{Kind: llm.Truncated, Provider: m.cfg.ProviderName, Message: "stream ended after finish_reason without usage or [DONE]"})
		return
	}
	if !yield(llm.Event{Type: llm.EventUsage, Usage: s.usage}, nil) {
		return
	}
	yield(llm.Event{Type: llm.EventStop, StopReason: s.stopReason()}, nil)
}

// chatStream turns Chat Completions chunks into llm events. Blocks are
// numbered in the order they first appear: reasoning, text and each tool
// call (keyed by the delta's index) open a block; text or reasoning after a
// different block opens a new one.
type chatStream struct {
	yield    func(llm.Event, error) bool
	provider string
	next     int // index of the next block to open
	text     int // open text block, or -1
	thinking int // open thinking block, or -1
	calls    []*chatCall
	byIndex  map[int64]*chatCall
	finish   string // the finish_reason, once seen
	refusal  bool
	usage    llm.Usage
	sawUsage bool
	err      error // a failure found in a chunk, yielded by the caller
}

// chatCall is one tool call being streamed.
type chatCall struct {
	block   int
	id      string
	name    string
	args    []byte
	started bool // EventToolCallStart sent
	ended   bool
}

// chunk handles one chunk. It returns false when the consumer stopped.
func (s *chatStream) chunk(c *openai.ChatCompletionChunk) bool {
	if c.JSON.Usage.Valid() {
		s.usage, s.sawUsage = chatUsage(c.Usage), true
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // only one choice is ever asked for
		}
		if !s.delta(c.ID, &ch.Delta) {
			return false
		}
		if ch.FinishReason != "" && s.finish == "" {
			s.finish = ch.FinishReason
			if !s.closeThinking() || !s.endCalls() {
				return false
			}
		}
	}
	return true
}

// delta handles one choice's delta.
func (s *chatStream) delta(chunkID string, d *openai.ChatCompletionChunkChoiceDelta) bool {
	if len(d.JSON.ExtraFields) > 0 {
		if r := reasoningDelta(d); r != "" && !s.thinkingDelta(r) {
			return false
		}
	}
	if d.Content != "" && !s.textDelta(d.Content) {
		return false
	}
	if d.Refusal != "" {
		s.refusal = true
		if !s.textDelta(d.Refusal) {
			return false
		}
	}
	for i := range d.ToolCalls {
		if !s.toolCallDelta(chunkID, &d.ToolCalls[i]) {
			return false
		}
	}
	return true
}

// reasoningDelta returns the reasoning text of a delta, which the SDK does
// not know: reasoning_content (DeepSeek, vLLM, llama.cpp) or reasoning
// (OpenRouter, Ollama).
func reasoningDelta(d *openai.ChatCompletionChunkChoiceDelta) string {
	for _, key := range [...]string{"reasoning_content", "reasoning"} {
		// Fields the SDK does not declare are never Valid; read them raw.
		raw := d.JSON.ExtraFields[key].Raw()
		if len(raw) < 2 || raw[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func (s *chatStream) emit(ev llm.Event) bool { return s.yield(ev, nil) }

func (s *chatStream) open() int {
	i := s.next
	s.next++
	return i
}

func (s *chatStream) thinkingDelta(text string) bool {
	if s.thinking < 0 {
		s.text = -1
		s.thinking = s.open()
	}
	return s.emit(llm.Event{Type: llm.EventThinkingDelta, Index: s.thinking, Text: text})
}

func (s *chatStream) textDelta(text string) bool {
	if !s.closeThinking() {
		return false
	}
	if s.text < 0 {
		s.text = s.open()
	}
	return s.emit(llm.Event{Type: llm.EventTextDelta, Index: s.text, Text: text})
}

// closeThinking ends the open thinking block. Chat Completions gives no
// signature: the reasoning cannot be sent back.
func (s *chatStream) closeThinking() bool {
	if s.thinking < 0 {
		return true
	}
	i := s.thinking
	s.thinking = -1
	return s.emit(llm.Event{Type: llm.EventThinkingEnd, Index: i})
}

// toolCallDelta handles a fragment of a tool call. A call starts once its
// name is known; argument fragments that come earlier wait for the start.
func (s *chatStream) toolCallDelta(chunkID string, tc *openai.ChatCompletionChunkChoiceDeltaToolCall) bool {
	call := s.byIndex[tc.Index]
	if call == nil || (tc.ID != "" && call.id != "" && tc.ID != call.id) {
		// A new call; some servers reuse index 0 for every call, so a new
		// id at a known index is a new call too.
		if !s.closeThinking() {
			return false
		}
		s.text = -1
		call = &chatCall{block: s.open()}
		s.calls = append(s.calls, call)
		if s.byIndex == nil {
			s.byIndex = make(map[int64]*chatCall)
		}
		s.byIndex[tc.Index] = call
	}
	if call.id == "" {
		call.id = tc.ID
	}
	if call.name == "" {
		call.name = tc.Function.Name
	}
	frag := tc.Function.Arguments
	if call.started {
		call.args = append(call.args, frag...)
		if frag == "" {
			return true
		}
		return s.emit(llm.Event{Type: llm.EventToolCallDelta, Index: call.block, Text: frag})
	}
	call.args = append(call.args, frag...)
	if call.name == "" {
		return true
	}
	return s.start(chunkID, call)
}

// start sends a call's start event and the arguments that came before it.
func (s *chatStream) start(chunkID string, call *chatCall) bool {
	call.started = true
	if call.id == "" {
		// Some local servers send no ids; results must still find their call.
		call.id = "call_" + chunkID + "_" + strconv.Itoa(call.block)
	}
	if !s.emit(llm.Event{Type: llm.EventToolCallStart, Index: call.block, ToolCallID: call.id, ToolName: call.name}) {
		return false
	}
	if len(call.args) == 0 {
		return true
	}
	return s.emit(llm.Event{Type: llm.EventToolCallDelta, Index: call.block, Text: string(call.args)})
}

// endCalls ends every open call with its complete arguments. After a
// length finish a call whose arguments do not parse was cut off: it is left
// open, so accumulators drop it. Otherwise unparseable arguments fail the
// reply.
func (s *chatStream) endCalls() bool {
	for _, call := range s.calls {
		if call.ended {
			continue
		}
		if !call.started && !s.start("", call) {
			return false
		}
		args := call.args
		if len(args) == 0 {
			args = []byte("{}")
		}
		if !json.Valid(args) {
			if s.finish == "length" {
				continue
			}
			s.err = &llm.Error{Kind: llm.Truncated, Provider: s.provider,
				Message: fmt.Sprintf("tool call %s (%s): arguments are not valid JSON: %.200q", call.id, call.name, args)}
			return true
		}
		call.ended = true
		if !s.emit(llm.Event{Type: llm.EventToolCallEnd, Index: call.block, ToolCallID: call.id, ToolName: call.name, Arguments: json.RawMessage(args)}) {
			return false
		}
	}
	return true
}

// stopReason maps the finish_reason. Some servers (older Ollama among them)
// say stop after tool calls; the calls decide.
func (s *chatStream) stopReason() llm.StopReason {
	var ended bool
	for _, c := range s.calls {
		ended = ended || c.ended
	}
	switch s.finish {
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	}
	switch {
	case ended:
		return llm.StopToolUse
	case s.refusal:
		return llm.StopRefusal
	}
	return llm.StopEndTurn
}

// chatUsage normalises Chat Completions usage, whose prompt_tokens include
// the cached ones (and, where a server reports them, the cache writes).
func chatUsage(u openai.CompletionUsage) llm.Usage {
	read := u.PromptTokensDetails.CachedTokens
	if read == 0 {
		// DeepSeek reports cache hits at the top level.
		if f, ok := u.JSON.ExtraFields["prompt_cache_hit_tokens"]; ok {
			read, _ = strconv.ParseInt(f.Raw(), 10, 64)
		}
	}
	write := u.PromptTokensDetails.CacheWriteTokens
	return llm.Usage{
		Input:      max(0, u.PromptTokens-read-write),
		Output:     u.CompletionTokens,
		CacheRead:  read,
		CacheWrite: write,
	}
}
