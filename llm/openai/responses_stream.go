package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/vigil-dev/vigil/llm"
)

// streamResponses runs one Responses request and yields its events.
func (m *Model) streamResponses(ctx context.Context, req llm.Request, yield func(llm.Event, error) bool) {
	params, err := m.responsesParams(req)
	if err != nil {
		yield(llm.Event{}, m.requestError(err))
		return
	}
	var res *http.Response
	stream := m.responses.NewStreaming(ctx, params, option.WithResponseInto(&res))
	defer stream.Close()

	s := responsesStream{yield: yield, m: m}
	for stream.Next() {
		if err := ctx.Err(); err != nil {
			yield(llm.Event{}, err)
			return
		}
		ev := stream.Current()
		if !s.event(&ev) {
			return
		}
		if s.err != nil {
			yield(llm.Event{}, s.err)
			return
		}
		if s.done {
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
	yield(llm.Event{}, &llm.Error{Kind: llm.Truncated, Provider: m.cfg.ProviderName, Message: "stream ended before response.completed"})
}

// responsesStream turns Responses events into llm events. Each output item
// that carries something (a reasoning item, a message with text, a
// function call) becomes one block, numbered when its first event arrives;
// items stream one after another, so that is their order in the output.
type responsesStream struct {
	yield   func(llm.Event, error) bool
	m       *Model
	next    int
	items   map[string]*responsesItem
	calls   bool // a function call ended
	refusal bool
	err     error // a failure, yielded by the caller
	done    bool  // the terminal event was handled
}

// responsesItem is one output item being streamed.
type responsesItem struct {
	block   int // -1 until the first event
	typ     string
	callID  string
	name    string
	args    strings.Builder
	text    bool  // a text or thinking delta was sent
	summary int64 // index of the summary part being streamed
	started bool
	ended   bool
}

// key identifies the item an event belongs to: its id, or its position
// when a server sends no id.
func itemKey(id string, outputIndex int64) string {
	if id != "" {
		return id
	}
	return "#" + strconv.FormatInt(outputIndex, 10)
}

func (s *responsesStream) item(id string, outputIndex int64, typ string) *responsesItem {
	k := itemKey(id, outputIndex)
	it := s.items[k]
	// An event that names an item of another type than the one seen
	// under its key is a new item: one block never mixes kinds.
	if it == nil || it.typ != typ {
		if s.items == nil {
			s.items = make(map[string]*responsesItem)
		}
		it = &responsesItem{block: -1, typ: typ}
		s.items[k] = it
	}
	return it
}

func (s *responsesStream) blockOf(it *responsesItem) int {
	if it.block < 0 {
		it.block = s.next
		s.next++
	}
	return it.block
}

func (s *responsesStream) emit(ev llm.Event) bool { return s.yield(ev, nil) }

// event handles one stream event. It returns false when the consumer
// stopped.
func (s *responsesStream) event(ev *responses.ResponseStreamEventUnion) bool {
	switch ev.Type {
	case "response.output_item.added":
		it := s.item(ev.Item.ID, ev.OutputIndex, ev.Item.Type)
		if ev.Item.Type == "function_call" {
			it.callID, it.name = ev.Item.CallID, ev.Item.Name
			return s.startCall(it, ev.Item.ID)
		}
	case "response.output_text.delta":
		it := s.item(ev.ItemID, ev.OutputIndex, "message")
		it.text = true
		return s.emit(llm.Event{Type: llm.EventTextDelta, Index: s.blockOf(it), Text: ev.Delta})
	case "response.refusal.delta":
		s.refusal = true
		it := s.item(ev.ItemID, ev.OutputIndex, "message")
		it.text = true
		return s.emit(llm.Event{Type: llm.EventTextDelta, Index: s.blockOf(it), Text: ev.Delta})
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		it := s.item(ev.ItemID, ev.OutputIndex, "reasoning")
		text := ev.Delta
		if it.text && ev.SummaryIndex != it.summary {
			text = "\n\n" + text // a new summary part
		}
		it.text, it.summary = true, ev.SummaryIndex
		return s.emit(llm.Event{Type: llm.EventThinkingDelta, Index: s.blockOf(it), Text: text})
	case "response.function_call_arguments.delta":
		it := s.item(ev.ItemID, ev.OutputIndex, "function_call")
		if !it.started && !s.startCall(it, ev.ItemID) {
			return false
		}
		it.args.WriteString(ev.Delta)
		return s.emit(llm.Event{Type: llm.EventToolCallDelta, Index: s.blockOf(it), Text: ev.Delta})
	case "response.output_item.done":
		return s.itemDone(ev)
	case "response.completed", "response.incomplete":
		return s.finish(&ev.Response)
	case "response.failed":
		e := ev.Response.Error
		msg := e.Message
		if msg == "" {
			msg = "response failed"
		}
		s.err = s.m.eventError(string(e.Code), msg, nil)
	case "error":
		s.err = s.m.eventError(ev.Code, ev.Message, nil)
	}
	return true
}

// startCall opens a function call's block.
func (s *responsesStream) startCall(it *responsesItem, itemID string) bool {
	if it.started {
		return true
	}
	it.started = true
	if it.callID == "" {
		it.callID = itemID
	}
	return s.emit(llm.Event{Type: llm.EventToolCallStart, Index: s.blockOf(it), ToolCallID: it.callID, ToolName: it.name})
}

// itemDone closes an output item, sending what its deltas did not carry.
func (s *responsesStream) itemDone(ev *responses.ResponseStreamEventUnion) bool {
	item := &ev.Item
	it := s.item(item.ID, ev.OutputIndex, item.Type)
	if it.ended {
		return true
	}
	it.ended = true
	switch item.Type {
	case "reasoning":
		r := reasoningItem{ID: item.ID, EncryptedContent: item.EncryptedContent}
		for _, p := range item.Summary {
			r.Summary = append(r.Summary, p.Text)
		}
		if !it.text && len(r.Summary) > 0 {
			it.text = true
			if !s.emit(llm.Event{Type: llm.EventThinkingDelta, Index: s.blockOf(it), Text: strings.Join(r.Summary, "\n\n")}) {
				return false
			}
		}
		return s.emit(llm.Event{Type: llm.EventThinkingEnd, Index: s.blockOf(it), Signature: r.encode()})
	case "message":
		if it.text {
			return true
		}
		for _, c := range item.Content {
			text := c.Text
			if c.Type == "refusal" {
				text, s.refusal = c.Refusal, true
			}
			if text == "" {
				continue
			}
			it.text = true
			if !s.emit(llm.Event{Type: llm.EventTextDelta, Index: s.blockOf(it), Text: text}) {
				return false
			}
		}
	case "function_call":
		if it.callID == "" {
			it.callID = item.CallID
		}
		if it.name == "" {
			it.name = item.Name
		}
		if !s.startCall(it, item.ID) {
			return false
		}
		args := item.Arguments.OfString
		if args == "" {
			args = it.args.String()
		}
		if args == "" {
			args = "{}"
		}
		if !json.Valid([]byte(args)) {
			s.err = &llm.Error{Kind: llm.Truncated, Provider: s.m.cfg.ProviderName,
				Message: fmt.Sprintf("tool call %s (%s): arguments are not valid JSON: %.200q", it.callID, it.name, args)}
			return true
		}
		s.calls = true
		return s.emit(llm.Event{Type: llm.EventToolCallEnd, Index: s.blockOf(it), ToolCallID: it.callID, ToolName: it.name, Arguments: json.RawMessage(args)})
	}
	return true
}

// finish sends the usage and the stop event of a completed or incomplete
// response.
func (s *responsesStream) finish(r *responses.Response) bool {
	s.done = true
	stop := llm.StopEndTurn
	switch {
	case r.Status == "incomplete" || r.IncompleteDetails.Reason != "":
		switch r.IncompleteDetails.Reason {
		case "content_filter":
			stop = llm.StopRefusal
		default:
			stop = llm.StopMaxTokens
		}
	case s.calls:
		stop = llm.StopToolUse
	case s.refusal:
		stop = llm.StopRefusal
	}
	if !s.emit(llm.Event{Type: llm.EventUsage, Usage: responsesUsage(r.Usage)}) {
		return false
	}
	return s.emit(llm.Event{Type: llm.EventStop, StopReason: stop})
}

// responsesUsage normalises Responses usage, whose input_tokens include the
// cached ones.
func responsesUsage(u responses.ResponseUsage) llm.Usage {
	read := u.InputTokensDetails.CachedTokens
	write := u.InputTokensDetails.CacheWriteTokens
	return llm.Usage{
		Input:      max(0, u.InputTokens-read-write),
		Output:     u.OutputTokens,
		CacheRead:  read,
		CacheWrite: write,
	}
}
