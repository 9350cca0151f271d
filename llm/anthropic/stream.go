package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/vigil-dev/vigil/llm"
)

// maxBlocks bounds the content block index a reply may use, so that a
// corrupt index cannot make the translator allocate without limit.
const maxBlocks = 1 << 16

// The kinds of content block the translator surfaces; any other block
// (server tool calls and their results) is skipped.
const (
	kindIgnored = iota
	kindText
	kindThinking
	kindRedacted
	kindToolUse
)

// block is the translator's state of one content block of the reply.
type block struct {
	kind int
	// index is the block's position in the neutral reply, or -1 until the
	// block's first event.
	index     int
	signature string
	id        string
	args      []byte
	// startInput is the tool input the block opened with, used when no
	// argument deltas follow.
	startInput string
}

// translator turns the Messages API's stream events into llm events. Its
// zero value is ready for one reply.
type translator struct {
	blocks  []block
	next    int // the next neutral block index
	usage   llm.Usage
	stop    llm.StopReason
	started bool // message_start was seen
	out     []llm.Event
}

// translate returns the llm events for ev, and whether the reply is
// complete. The slice is reused by the next call. An error means the stream
// contradicts itself, such as tool arguments that are not JSON.
func (t *translator) translate(ev *sdk.MessageStreamEventUnion) ([]llm.Event, bool, error) {
	t.out = t.out[:0]
	switch ev.Type {
	case "message_start":
		t.started = true
		u := ev.Message.Usage
		t.usage = llm.Usage{
			Input:      u.InputTokens,
			Output:     u.OutputTokens,
			CacheRead:  u.CacheReadInputTokens,
			CacheWrite: u.CacheCreationInputTokens,
		}
	case "content_block_start":
		if err := t.start(ev); err != nil {
			return nil, false, err
		}
	case "content_block_delta":
		if err := t.delta(ev); err != nil {
			return nil, false, err
		}
	case "content_block_stop":
		if err := t.end(ev.Index); err != nil {
			return nil, false, err
		}
	case "message_delta":
		if r := ev.Delta.StopReason; r != "" {
			t.stop = stopReason(r)
		}
		t.mergeUsage(&ev.Usage)
	case "message_stop":
		if !t.started {
			return nil, false, fmt.Errorf("message_stop without message_start")
		}
		stop := t.stop
		if stop == "" {
			stop = llm.StopEndTurn
		}
		t.out = append(t.out,
			llm.Event{Type: llm.EventUsage, Usage: t.usage},
			llm.Event{Type: llm.EventStop, StopReason: stop})
		return t.out, true, nil
	}
	return t.out, false, nil
}

// mergeUsage applies message_delta's counts, which are cumulative: each one
// present replaces a smaller count from message_start.
func (t *translator) mergeUsage(u *sdk.MessageDeltaUsage) {
	raise := func(dst *int64, v int64, present bool) {
		if present && v > *dst {
			*dst = v
		}
	}
	raise(&t.usage.Input, u.InputTokens, u.JSON.InputTokens.Valid())
	raise(&t.usage.Output, u.OutputTokens, u.JSON.OutputTokens.Valid())
	raise(&t.usage.CacheRead, u.CacheReadInputTokens, u.JSON.CacheReadInputTokens.Valid())
	raise(&t.usage.CacheWrite, u.CacheCreationInputTokens, u.JSON.CacheCreationInputTokens.Valid())
}

// block returns the state of the block at the API's index i, creating it.
func (t *translator) block(i int64) (*block, error) {
	if i < 0 || i >= maxBlocks {
		return nil, fmt.Errorf("content block index %d out of range", i)
	}
	for int64(len(t.blocks)) <= i {
		t.blocks = append(t.blocks, block{index: -1})
	}
	return &t.blocks[i], nil
}

// emit appends an event for b, numbering b on its first event.
func (t *translator) emit(b *block, ev llm.Event) {
	if b.index < 0 {
		b.index = t.next
		t.next++
	}
	ev.Index = b.index
	t.out = append(t.out, ev)
}

func (t *translator) start(ev *sdk.MessageStreamEventUnion) error {
	b, err := t.block(ev.Index)
	if err != nil {
		return err
	}
	cb := &ev.ContentBlock
	*b = block{index: b.index}
	switch cb.Type {
	case "text":
		b.kind = kindText
		if cb.Text != "" {
			t.emit(b, llm.Event{Type: llm.EventTextDelta, Text: cb.Text})
		}
	case "thinking":
		b.kind = kindThinking
		b.signature = cb.Signature
		if cb.Thinking != "" {
			t.emit(b, llm.Event{Type: llm.EventThinkingDelta, Text: cb.Thinking})
		}
	case "redacted_thinking":
		// It arrives whole; its stop adds nothing.
		b.kind = kindRedacted
		t.emit(b, llm.Event{Type: llm.EventThinkingEnd, Redacted: cb.Data})
	case "tool_use":
		b.kind = kindToolUse
		b.id = cb.ID
		b.startInput = cb.JSON.Input.Raw()
		t.emit(b, llm.Event{Type: llm.EventToolCallStart, ToolCallID: cb.ID, ToolName: cb.Name})
	default:
		b.kind = kindIgnored
	}
	return nil
}

func (t *translator) delta(ev *sdk.MessageStreamEventUnion) error {
	b, err := t.block(ev.Index)
	if err != nil {
		return err
	}
	d := &ev.Delta
	switch {
	case d.Type == "text_delta" && b.kind == kindText:
		if d.Text != "" {
			t.emit(b, llm.Event{Type: llm.EventTextDelta, Text: d.Text})
		}
	case d.Type == "thinking_delta" && b.kind == kindThinking:
		if d.Thinking != "" {
			t.emit(b, llm.Event{Type: llm.EventThinkingDelta, Text: d.Thinking})
		}
	case d.Type == "signature_delta" && b.kind == kindThinking:
		b.signature += d.Signature
	case d.Type == "input_json_delta" && b.kind == kindToolUse:
		if d.PartialJSON != "" {
			b.args = append(b.args, d.PartialJSON...)
			t.emit(b, llm.Event{Type: llm.EventToolCallDelta, Text: d.PartialJSON})
		}
	}
	// Anything else (citations, deltas of skipped blocks) has no llm event.
	return nil
}

func (t *translator) end(i int64) error {
	b, err := t.block(i)
	if err != nil {
		return err
	}
	switch b.kind {
	case kindThinking:
		t.emit(b, llm.Event{Type: llm.EventThinkingEnd, Signature: b.signature})
	case kindToolUse:
		args := b.args
		if len(args) == 0 && b.startInput != "" && b.startInput != "null" {
			args = []byte(b.startInput)
		}
		if len(args) == 0 {
			args = []byte("{}")
		}
		if !json.Valid(args) {
			return fmt.Errorf("tool call %s: arguments are not valid JSON: %.200q", b.id, args)
		}
		t.emit(b, llm.Event{Type: llm.EventToolCallEnd, Arguments: json.RawMessage(args)})
		b.args = nil
	}
	return nil
}

// stopReason maps the API's stop_reason to llm's. A reason llm does not
// know is passed on as it is.
func stopReason(r sdk.StopReason) llm.StopReason {
	switch r {
	case sdk.StopReasonEndTurn:
		return llm.StopEndTurn
	case sdk.StopReasonToolUse:
		return llm.StopToolUse
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		// Either way the reply was cut for want of room.
		return llm.StopMaxTokens
	case sdk.StopReasonStopSequence:
		return llm.StopSequence
	case sdk.StopReasonRefusal:
		return llm.StopRefusal
	case sdk.StopReasonPauseTurn:
		return llm.StopPause
	}
	return llm.StopReason(r)
}
