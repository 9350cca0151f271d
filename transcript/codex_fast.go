package transcript

// The fast path's decoders (jsonfast.go) of the structs in codex.go.

var (
	cxLineKeys     = fieldNames("timestamp", "type", "payload", "metadata")
	cxLineMetaKeys = fieldNames("compaction_output")
	cxItemKeys     = fieldNames("type", "role", "content", "summary", "encrypted_content", "name", "arguments",
		"input", "action", "call_id", "id", "output", "internal_chat_message_metadata_passthrough")
	cxInternalKeys   = fieldNames("content_item_metadata")
	cxItemMetaKeys   = fieldNames("provenance")
	cxProvenanceKeys = fieldNames("type")
	cxTextKeys       = fieldNames("type", "text", "image_url")
	cxEventKeys      = fieldNames("type", "call_id", "exit_code", "info", "item")
	cxEventInfoKeys  = fieldNames("last_token_usage")
	cxEventItemKeys  = fieldNames("type", "id", "status", "exit_code")
	cxUsageKeys      = fieldNames("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens")
)

func (l *cxLine) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "timestamp":
			if d.once(&seen, 0) {
				l.t, l.stamped = d.stamp(), true
			}
		case "type":
			if d.once(&seen, 1) {
				l.Type = d.strOf("response_item", "event_msg", "turn_context")
			}
		case "payload":
			if !d.once(&seen, 2) {
				break
			}
			// The payload is decoded with the line when its type came
			// first, as Codex writes it, and kept raw otherwise.
			switch {
			case l.Type == "response_item" && l.item != nil && d.peek() == '{':
				start := d.i
				l.item.decodeFast(d)
				l.Payload = d.b[start:d.i:d.i]
				l.decoded = true
			case l.Type == "event_msg" && l.event != nil && d.peek() == '{':
				start := d.i
				l.event.decodeFast(d)
				l.Payload = d.b[start:d.i:d.i]
				l.decoded = true
			default:
				l.Payload = d.raw()
			}
		case "metadata":
			if d.once(&seen, 3) && d.object() {
				l.Metadata = &cxLineMeta{}
				var seen uint64
				for d.more() {
					if string(d.key) == "compaction_output" {
						if d.once(&seen, 0) {
							l.Metadata.CompactionOutput = d.boolean()
						}
					} else {
						d.unknown(cxLineMetaKeys)
					}
				}
			}
		default:
			d.unknown(cxLineKeys)
		}
	}
}

func (it *cxItem) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				it.Type = d.strOf("message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output")
			}
		case "role":
			if d.once(&seen, 1) {
				it.Role = d.strOf("assistant", "user", "developer")
			}
		case "content":
			if d.once(&seen, 2) {
				it.Content = d.raw()
			}
		case "summary":
			if d.once(&seen, 3) {
				var list cxTextList
				list.decodeFast(d)
				it.Summary = list
			}
		case "encrypted_content":
			if d.once(&seen, 4) {
				it.Encrypted = d.str()
			}
		case "name":
			if d.once(&seen, 5) {
				it.Name = d.strRecent()
			}
		case "arguments":
			if d.once(&seen, 6) {
				it.Arguments = d.raw()
			}
		case "input":
			if d.once(&seen, 7) {
				it.Input = d.raw()
			}
		case "action":
			if d.once(&seen, 8) {
				it.Action = d.raw()
			}
		case "call_id":
			if d.once(&seen, 9) {
				it.CallID = d.strRecent()
			}
		case "id":
			if d.once(&seen, 10) {
				it.ID = d.str()
			}
		case "output":
			if d.once(&seen, 11) {
				it.Output = d.raw()
			}
		case "internal_chat_message_metadata_passthrough":
			if d.once(&seen, 12) && d.object() {
				it.Internal = &cxInternal{}
				it.Internal.decodeFast(d)
			}
		default:
			d.unknown(cxItemKeys)
		}
	}
}

// decodeFast reads the members of the object just entered.
func (in *cxInternal) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		if string(d.key) != "content_item_metadata" {
			d.unknown(cxInternalKeys)
			continue
		}
		if !d.once(&seen, 0) || !d.array() {
			continue
		}
		in.ContentItemMetadata = []cxItemMeta{}
		for d.next() {
			var m cxItemMeta
			if d.object() {
				var seen uint64
				for d.more() {
					if string(d.key) != "provenance" {
						d.unknown(cxItemMetaKeys)
						continue
					}
					if !d.once(&seen, 0) || !d.object() {
						continue
					}
					var seen uint64
					for d.more() {
						if string(d.key) == "type" {
							if d.once(&seen, 0) {
								m.Provenance.Type = d.str()
							}
						} else {
							d.unknown(cxProvenanceKeys)
						}
					}
				}
			}
			in.ContentItemMetadata = append(in.ContentItemMetadata, m)
		}
	}
}

// cxTextList is message content or a reasoning summary as a list.
type cxTextList []cxText

func (ts *cxTextList) decodeFast(d *jdec) {
	if !d.array() {
		if !d.fail {
			*ts = nil
		}
		return
	}
	*ts = cxTextList{}
	for d.next() {
		var t cxText
		if d.object() {
			var seen uint64
			for d.more() {
				switch string(d.key) {
				case "type":
					if d.once(&seen, 0) {
						t.Type = d.strOf("input_text", "output_text", "summary_text")
					}
				case "text":
					if d.once(&seen, 1) {
						t.Text = d.str()
					}
				case "image_url":
					if d.once(&seen, 2) {
						t.ImageURL = d.str()
					}
				default:
					d.unknown(cxTextKeys)
				}
			}
		}
		*ts = append(*ts, t)
	}
}

func (ev *cxEvent) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				ev.Type = d.strOf("token_count", "exec_command_end", "agent_message", "agent_reasoning", "user_message", "exec_command_begin")
			}
		case "call_id":
			if d.once(&seen, 1) {
				ev.CallID = d.str()
			}
		case "exit_code":
			if d.once(&seen, 2) {
				ev.ExitCode = d.intp()
			}
		case "info":
			if d.once(&seen, 3) && d.object() {
				ev.Info = &cxEventInfo{}
				var seen uint64
				for d.more() {
					if string(d.key) != "last_token_usage" {
						d.unknown(cxEventInfoKeys)
						continue
					}
					if d.once(&seen, 0) && d.object() {
						ev.Info.Last = &cxUsage{}
						ev.Info.Last.decodeFast(d)
					}
				}
			}
		case "item":
			if d.once(&seen, 4) && d.object() {
				ev.Item = &cxEventItem{}
				var seen uint64
				for d.more() {
					switch string(d.key) {
					case "type":
						if d.once(&seen, 0) {
							ev.Item.Type = d.str()
						}
					case "id":
						if d.once(&seen, 1) {
							ev.Item.ID = d.str()
						}
					case "status":
						if d.once(&seen, 2) {
							ev.Item.Status = d.str()
						}
					case "exit_code":
						if d.once(&seen, 3) {
							ev.Item.ExitCode = d.intp()
						}
					default:
						d.unknown(cxEventItemKeys)
					}
				}
			}
		default:
			d.unknown(cxEventKeys)
		}
	}
}

// decodeFast reads the members of the object just entered.
func (u *cxUsage) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "input_tokens":
			if d.once(&seen, 0) {
				u.InputTokens = d.int64v()
			}
		case "cached_input_tokens":
			if d.once(&seen, 1) {
				u.CachedInput = d.int64v()
			}
		case "cache_write_input_tokens":
			if d.once(&seen, 2) {
				u.CacheWriteInput = d.int64v()
			}
		case "output_tokens":
			if d.once(&seen, 3) {
				u.OutputTokens = d.int64v()
			}
		default:
			d.unknown(cxUsageKeys)
		}
	}
}

var (
	cxUsageRecordKeys = fieldNames("usage")
	cxTurnContextKeys = fieldNames("model")
	cxCompactedKeys   = fieldNames("message")
)

func (rec *cxUsageRecord) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		if string(d.key) != "usage" {
			d.unknown(cxUsageRecordKeys)
		} else if d.once(&seen, 0) && d.object() {
			rec.Usage = &cxUsage{}
			rec.Usage.decodeFast(d)
		}
	}
}

func (tc *cxTurnContext) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		if string(d.key) != "model" {
			d.unknown(cxTurnContextKeys)
		} else if d.once(&seen, 0) {
			tc.Model = d.str()
		}
	}
}

func (c *cxCompacted) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		if string(d.key) != "message" {
			d.unknown(cxCompactedKeys)
		} else if d.once(&seen, 0) {
			c.Message = d.str()
		}
	}
}

var (
	cxProbeKeys        = fieldNames("type", "payload")
	cxProbePayloadKeys = fieldNames("id", "cwd", "timestamp", "model_provider", "model")
)

func (p *cxProbe) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				p.Type = d.strOf("response_item", "event_msg", "turn_context", "session_meta")
			}
		case "payload":
			if d.once(&seen, 1) && d.object() {
				p.Payload = &cxProbePayload{}
				p.Payload.members(d)
			}
		default:
			d.unknown(cxProbeKeys)
		}
	}
}

func (p *cxProbePayload) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	p.members(d)
}

// members reads the members of the object just entered.
func (p *cxProbePayload) members(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "id":
			if d.once(&seen, 0) {
				p.ID = d.str()
			}
		case "cwd":
			if d.once(&seen, 1) {
				p.CWD = d.str()
			}
		case "timestamp":
			if d.once(&seen, 2) {
				p.Timestamp = d.str()
			}
		case "model_provider":
			if d.once(&seen, 3) {
				p.ModelProvider = d.str()
			}
		case "model":
			if d.once(&seen, 4) {
				p.Model = d.str()
			}
		default:
			d.unknown(cxProbePayloadKeys)
		}
	}
}
