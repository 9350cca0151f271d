package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

// Model is a language model that can be asked for one reply at a time.
//
// Stream starts a request and returns the reply as an iterator of events.
// Implementations must guarantee:
//   - the iterator may be ranged over once; breaking out of the loop releases
//     the connection;
//   - an error is yielded at most once, as the last pair, with a zero Event;
//   - a reply that ends without the provider's final event (the connection
//     dropped, the body ended early) yields an [*Error] of kind [Truncated];
//   - cancelling ctx ends the iterator promptly with ctx's error;
//   - every event of a successful reply is followed by exactly one
//     [EventStop] as the last event.
type Model interface {
	Stream(ctx context.Context, req Request) iter.Seq2[Event, error]
}

// EventType says what an event reports.
type EventType int

// The kinds of stream event.
const (
	// EventTextDelta carries Text, a fragment of the text block at Index.
	EventTextDelta EventType = iota + 1
	// EventThinkingDelta carries Text, a fragment of the thinking block at
	// Index.
	EventThinkingDelta
	// EventThinkingEnd ends the thinking block at Index and carries its
	// Signature. A redacted thinking block arrives whole as EventThinkingEnd
	// with Redacted set.
	EventThinkingEnd
	// EventToolCallStart opens the tool call block at Index with ToolCallID
	// and ToolName.
	EventToolCallStart
	// EventToolCallDelta carries Text, a fragment of the arguments JSON of the
	// tool call at Index.
	EventToolCallDelta
	// EventToolCallEnd closes the tool call at Index; Arguments holds the
	// complete arguments object.
	EventToolCallEnd
	// EventUsage carries Usage, the reply's token counts so far. Later usage
	// events replace earlier ones.
	EventUsage
	// EventStop ends a successful reply and carries StopReason.
	EventStop
)

var eventNames = map[EventType]string{
	EventTextDelta:     "text_delta",
	EventThinkingDelta: "thinking_delta",
	EventThinkingEnd:   "thinking_end",
	EventToolCallStart: "tool_call_start",
	EventToolCallDelta: "tool_call_delta",
	EventToolCallEnd:   "tool_call_end",
	EventUsage:         "usage",
	EventStop:          "stop",
}

// String returns the event type's name.
func (t EventType) String() string {
	if s, ok := eventNames[t]; ok {
		return s
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one step of a streamed reply. Index is the position of the content
// block the event belongs to in the final message; adapters number blocks in
// the order they appear, from 0.
type Event struct {
	Type       EventType
	Index      int
	Text       string
	Signature  string
	Redacted   string
	ToolCallID string
	ToolName   string
	Arguments  json.RawMessage
	Usage      Usage
	StopReason StopReason
}

// StopReason says why the model stopped.
type StopReason string

// The stop reasons adapters report.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopSequence  StopReason = "stop_sequence"
	StopRefusal   StopReason = "refusal"
	StopPause     StopReason = "pause_turn"
)

// Response is a whole reply.
type Response struct {
	Message    Message
	Usage      Usage
	StopReason StopReason
}

// Accumulate drains a stream into a Response. On error it returns the part
// of the reply received so far together with the error: text and thinking
// fragments are kept; a tool call whose arguments never completed is kept
// only if what arrived is valid JSON. A stream that ends without
// [EventStop] is a [Truncated] error.
func Accumulate(stream iter.Seq2[Event, error]) (*Response, error) {
	var acc Accumulator
	for ev, err := range stream {
		if err != nil {
			return acc.Response(), err
		}
		if err := acc.Add(ev); err != nil {
			return acc.Response(), err
		}
	}
	if !acc.stopped {
		return acc.Response(), &Error{Kind: Truncated, Message: "stream ended without a stop event"}
	}
	return acc.Response(), nil
}

// Accumulator folds events into a message as they arrive, for callers that
// also want to show each event (a terminal UI, a log).
type Accumulator struct {
	blocks  []Block
	args    map[int][]byte
	usage   Usage
	stop    StopReason
	stopped bool
}

// Add applies one event. It fails on an event that contradicts earlier ones,
// such as a delta for a tool call that never started.
func (a *Accumulator) Add(ev Event) error {
	switch ev.Type {
	case EventUsage:
		a.usage = ev.Usage
		return nil
	case EventStop:
		a.stop, a.stopped = ev.StopReason, true
		return nil
	}
	if ev.Index < 0 || ev.Index > len(a.blocks)+64 {
		return fmt.Errorf("accumulate %s: block index %d out of range", ev.Type, ev.Index)
	}
	for len(a.blocks) <= ev.Index {
		a.blocks = append(a.blocks, Block{})
	}
	b := &a.blocks[ev.Index]
	switch ev.Type {
	case EventTextDelta:
		if err := a.claim(b, BlockText, ev); err != nil {
			return err
		}
		b.Text += ev.Text
	case EventThinkingDelta:
		if err := a.claim(b, BlockThinking, ev); err != nil {
			return err
		}
		b.Text += ev.Text
	case EventThinkingEnd:
		if ev.Redacted != "" {
			if err := a.claim(b, BlockRedactedThinking, ev); err != nil {
				return err
			}
			b.Data = ev.Redacted
			return nil
		}
		if err := a.claim(b, BlockThinking, ev); err != nil {
			return err
		}
		b.Signature = ev.Signature
	case EventToolCallStart:
		if err := a.claim(b, BlockToolCall, ev); err != nil {
			return err
		}
		b.ID, b.Name = ev.ToolCallID, ev.ToolName
	case EventToolCallDelta:
		if b.Type != BlockToolCall {
			return fmt.Errorf("accumulate %s: block %d is not an open tool call", ev.Type, ev.Index)
		}
		if a.args == nil {
			a.args = make(map[int][]byte)
		}
		a.args[ev.Index] = append(a.args[ev.Index], ev.Text...)
	case EventToolCallEnd:
		if b.Type != BlockToolCall {
			return fmt.Errorf("accumulate %s: block %d is not an open tool call", ev.Type, ev.Index)
		}
		args := ev.Arguments
		if len(args) == 0 {
			args = a.args[ev.Index]
		}
		if len(args) == 0 {
			args = []byte("{}")
		}
		if !json.Valid(args) {
			return fmt.Errorf("accumulate tool call %s (%s): arguments are not valid JSON: %.200q", b.ID, b.Name, args)
		}
		b.Arguments = json.RawMessage(args)
		delete(a.args, ev.Index)
	default:
		return fmt.Errorf("accumulate: unknown event type %v", ev.Type)
	}
	return nil
}

// claim gives an empty block its type, or checks that it already has it.
func (a *Accumulator) claim(b *Block, t BlockType, ev Event) error {
	switch b.Type {
	case "":
		b.Type = t
		return nil
	case t:
		return nil
	}
	return fmt.Errorf("accumulate %s: block %d is %s, not %s", ev.Type, ev.Index, b.Type, t)
}

// Response returns the reply as accumulated so far. Empty placeholder blocks
// and tool calls whose arguments never completed are left out.
func (a *Accumulator) Response() *Response {
	msg := Message{Role: RoleAssistant}
	for i, b := range a.blocks {
		switch {
		case b.Type == "":
			continue
		case b.Type == BlockToolCall && b.Arguments == nil:
			// Arguments still streaming: keep the call only if what arrived
			// already parses.
			if raw := a.args[i]; json.Valid(raw) {
				b.Arguments = json.RawMessage(raw)
			} else {
				continue
			}
		}
		msg.Content = append(msg.Content, b)
	}
	return &Response{Message: msg, Usage: a.usage, StopReason: a.stop}
}
