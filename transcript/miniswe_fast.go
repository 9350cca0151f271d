package transcript

import "bytes"

// The fast path's decoders (jsonfast.go) of the structs in miniswe.go.

var (
	miniMessageKeys  = fieldNames("role", "content", "tool_calls", "tool_call_id", "extra", "reasoning_content")
	miniExtraKeys    = fieldNames("actions", "response", "returncode", "exception_info", "interrupt_type", "exit_status", "timestamp")
	miniActionKeys   = fieldNames("command", "tool_call_id")
	miniResponseKeys = fieldNames("model", "choices", "usage")
	miniChoiceKeys   = fieldNames("finish_reason", "message")
	miniReasonKeys   = fieldNames("reasoning_content")
	openAIUsageKeys  = fieldNames("prompt_tokens", "completion_tokens", "prompt_tokens_details", "cache_creation_input_tokens")
	openAIDetailKeys = fieldNames("cached_tokens")
	openAICallKeys   = fieldNames("id", "function")
	openAIFuncKeys   = fieldNames("name", "arguments")
	flexBlockKeys    = fieldNames("type", "text")
)

func (m *miniMessage) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "role":
			if d.once(&seen, 0) {
				m.Role = d.strOf("assistant", "user", "tool", "system", "exit")
			}
		case "content":
			if d.once(&seen, 1) {
				m.Content = decodeFlexText(d)
			}
		case "tool_calls":
			if d.once(&seen, 2) {
				m.ToolCalls = decodeOpenAICalls(d)
			}
		case "tool_call_id":
			if d.once(&seen, 3) {
				m.ToolCallID = d.strRecent()
			}
		case "extra":
			if d.once(&seen, 4) && d.object() {
				m.Extra.decodeFast(d)
			}
		case "reasoning_content":
			if d.once(&seen, 5) {
				m.Reasoning = d.str()
			}
		default:
			d.unknown(miniMessageKeys)
		}
	}
}

// decodeFast reads the members of the object just entered.
func (x *miniExtra) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "actions":
			if d.once(&seen, 0) && d.array() {
				x.Actions = []miniAction{}
				for d.next() {
					var a miniAction
					if d.object() {
						var seen uint64
						for d.more() {
							switch string(d.key) {
							case "command":
								if d.once(&seen, 0) {
									a.Command = d.str()
								}
							case "tool_call_id":
								if d.once(&seen, 1) {
									a.ToolCallID = d.strRecent()
								}
							default:
								d.unknown(miniActionKeys)
							}
						}
					}
					x.Actions = append(x.Actions, a)
				}
			}
		case "response":
			if d.once(&seen, 1) && d.object() {
				var seen uint64
				for d.more() {
					switch string(d.key) {
					case "model":
						if d.once(&seen, 0) {
							x.Response.Model = d.strRecent()
						}
					case "choices":
						if d.once(&seen, 1) && d.array() {
							x.Response.Choices = []miniChoice{}
							for d.next() {
								var c miniChoice
								if d.object() {
									c.decodeFast(d)
								}
								x.Response.Choices = append(x.Response.Choices, c)
							}
						}
					case "usage":
						if d.once(&seen, 2) && d.object() {
							x.Response.Usage.decodeFast(d)
						}
					default:
						d.unknown(miniResponseKeys)
					}
				}
			}
		case "returncode":
			if d.once(&seen, 2) {
				x.Returncode = d.intp()
			}
		case "exception_info":
			if d.once(&seen, 3) {
				x.ExceptionInfo = d.str()
			}
		case "interrupt_type":
			if d.once(&seen, 4) {
				x.InterruptType = d.str()
			}
		case "exit_status":
			if d.once(&seen, 5) {
				x.ExitStatus = d.str()
			}
		case "timestamp":
			if d.once(&seen, 6) {
				x.Timestamp = d.float64v()
			}
		default:
			d.unknown(miniExtraKeys)
		}
	}
}

// decodeFast reads the members of the object just entered.
func (c *miniChoice) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "finish_reason":
			if d.once(&seen, 0) {
				c.FinishReason = d.strOf("tool_calls", "stop")
			}
		case "message":
			if d.once(&seen, 1) && d.object() {
				var seen uint64
				for d.more() {
					if string(d.key) != "reasoning_content" {
						d.unknown(miniReasonKeys)
					} else if d.once(&seen, 0) {
						c.Message.ReasoningContent = d.str()
					}
				}
			}
		default:
			d.unknown(miniChoiceKeys)
		}
	}
}

// decodeFast reads the members of the object just entered.
func (u *openAIUsage) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "prompt_tokens":
			if d.once(&seen, 0) {
				u.PromptTokens = d.int64v()
			}
		case "completion_tokens":
			if d.once(&seen, 1) {
				u.CompletionTokens = d.int64v()
			}
		case "prompt_tokens_details":
			if d.once(&seen, 2) && d.object() {
				var seen uint64
				for d.more() {
					if string(d.key) != "cached_tokens" {
						d.unknown(openAIDetailKeys)
					} else if d.once(&seen, 0) {
						u.PromptTokensDetails.CachedTokens = d.int64v()
					}
				}
			}
		case "cache_creation_input_tokens":
			if d.once(&seen, 3) {
				u.CacheCreationInputTokens = d.int64v()
			}
		default:
			d.unknown(openAIUsageKeys)
		}
	}
}

// decodeOpenAICalls decodes a list of tool calls; the arguments are
// copied, since callArgs keeps them.
func decodeOpenAICalls(d *jdec) []openAICall {
	if !d.array() {
		return nil
	}
	calls := []openAICall{}
	for d.next() {
		var c openAICall
		if d.object() {
			var seen uint64
			for d.more() {
				switch string(d.key) {
				case "id":
					if d.once(&seen, 0) {
						c.ID = d.strRecent()
					}
				case "function":
					if d.once(&seen, 1) && d.object() {
						var seen uint64
						for d.more() {
							switch string(d.key) {
							case "name":
								if d.once(&seen, 0) {
									c.Function.Name = d.strRecent()
								}
							case "arguments":
								if d.once(&seen, 1) {
									c.Function.Arguments = callArgs(bytes.Clone(d.raw()))
								}
							default:
								d.unknown(openAIFuncKeys)
							}
						}
					}
				default:
					d.unknown(openAICallKeys)
				}
			}
		}
		calls = append(calls, c)
	}
	return calls
}

// decodeFlexText decodes message content as flexText.UnmarshalJSON does;
// what it would turn to "" by failing to decode is left to it.
func decodeFlexText(d *jdec) flexText {
	switch d.peek() {
	case '"':
		return flexText(d.str())
	case 'n':
		d.literal("null")
		return ""
	case '[':
	default:
		d.giveUp()
		return ""
	}
	d.array()
	out := ""
	for d.next() {
		if d.null() {
			continue // a block of no text
		}
		if !d.object() {
			d.giveUp()
			return ""
		}
		var typ, text string
		var seen uint64
		for d.more() {
			switch string(d.key) {
			case "type":
				if d.once(&seen, 0) {
					typ = d.strOf("text")
				}
			case "text":
				if d.once(&seen, 1) {
					text = d.str()
				}
			default:
				d.unknown(flexBlockKeys)
			}
		}
		if text == "" || (typ != "" && typ != "text") {
			continue
		}
		if out != "" {
			out += "\n"
		}
		out += text
	}
	return flexText(out)
}
