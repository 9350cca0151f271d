package transcript

// The fast path's decoders (jsonfast.go) of the structs in claudecode.go.

var ccLineKeys = fieldNames("type", "subtype", "uuid", "parentUuid", "logicalParentUuid", "timestamp",
	"sessionId", "cwd", "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly", "isApiErrorMessage",
	"message", "content", "attachment", "rendered", "renderedRole", "compactMetadata", "summary", "leafUuid")

func (l *ccLine) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				l.Type = d.strOf("assistant", "user", "attachment", "system", "progress")
			}
		case "subtype":
			if d.once(&seen, 1) {
				l.Subtype = d.str()
			}
		case "uuid":
			if d.once(&seen, 2) {
				l.UUID = d.strRecent()
			}
		case "parentUuid":
			if d.once(&seen, 3) {
				l.ParentUUID = d.strRecent()
			}
		case "logicalParentUuid":
			if d.once(&seen, 4) {
				l.LogicalParentUUID = d.str()
			}
		case "timestamp":
			if d.once(&seen, 5) {
				l.t, l.stamped = d.stamp(), true
			}
		case "sessionId":
			if d.once(&seen, 6) {
				l.SessionID = d.strRecent()
			}
		case "cwd":
			if d.once(&seen, 7) {
				l.CWD = d.strRecent()
			}
		case "isMeta":
			if d.once(&seen, 8) {
				l.IsMeta = d.boolean()
			}
		case "isCompactSummary":
			if d.once(&seen, 9) {
				l.IsCompactSummary = d.boolean()
			}
		case "isVisibleInTranscriptOnly":
			if d.once(&seen, 10) {
				l.IsVisibleInTranscriptOnly = d.boolean()
			}
		case "isApiErrorMessage":
			if d.once(&seen, 11) {
				l.IsAPIErrorMessage = d.boolean()
			}
		case "message":
			if d.once(&seen, 12) && d.object() {
				l.Message = &l.msg
				l.Message.decodeFast(d)
			}
		case "content":
			if d.once(&seen, 13) {
				l.Content = d.raw()
			}
		case "attachment":
			if d.once(&seen, 14) && d.object() {
				l.Attachment = &ccAttachment{}
				l.Attachment.decodeFast(d)
			}
		case "rendered":
			if d.once(&seen, 15) && d.array() {
				l.Rendered = []ccRendered{}
				for d.next() {
					var rd ccRendered
					if d.object() {
						var seen uint64
						for d.more() {
							if string(d.key) == "content" {
								if d.once(&seen, 0) {
									rd.Content = d.raw()
								}
							} else {
								d.unknown(ccRenderedKeys)
							}
						}
					}
					l.Rendered = append(l.Rendered, rd)
				}
			}
		case "renderedRole":
			if d.once(&seen, 16) {
				l.RenderedRole = d.str()
			}
		case "compactMetadata":
			if d.once(&seen, 17) && d.object() {
				l.CompactMetadata = &ccCompactMeta{}
				l.CompactMetadata.decodeFast(d)
			}
		case "summary":
			if d.once(&seen, 18) {
				l.Summary = d.str()
			}
		case "leafUuid":
			if d.once(&seen, 19) {
				l.LeafUUID = d.str()
			}
		default:
			d.unknown(ccLineKeys)
		}
	}
}

// decodeFast reads the members of an attachment, whose object has been
// entered.
func (a *ccAttachment) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				a.Type = d.str()
			}
		case "hookName":
			if d.once(&seen, 1) {
				a.HookName = d.str()
			}
		case "hookEvent":
			if d.once(&seen, 2) {
				a.HookEvent = d.str()
			}
		case "toolUseID":
			if d.once(&seen, 3) {
				a.ToolUseID = d.str()
			}
		case "content":
			if d.once(&seen, 4) {
				a.Content = d.raw()
			}
		case "blockingError":
			if d.once(&seen, 5) {
				a.BlockingError = d.raw()
			}
		default:
			d.unknown(ccAttachmentKeys)
		}
	}
}

var (
	ccAttachmentKeys = fieldNames("type", "hookName", "hookEvent", "toolUseID", "content", "blockingError")
	ccRenderedKeys   = fieldNames("content")
	ccCompactKeys    = fieldNames("preTokens", "preservedSegment")
	ccSegmentKeys    = fieldNames("headUuid")
	ccMessageKeys    = fieldNames("id", "role", "model", "content", "stop_reason", "usage")
	ccUsageKeys      = fieldNames("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
	ccBlockKeys      = fieldNames("type", "text", "thinking", "signature", "data", "id", "name", "input", "tool_use_id", "content", "is_error", "source")
	ccSourceKeys     = fieldNames("media_type", "data")
)

// decodeFast reads the members of compactMetadata, whose object has been
// entered.
func (m *ccCompactMeta) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "preTokens":
			if d.once(&seen, 0) {
				m.PreTokens = d.int64v()
			}
		case "preservedSegment":
			if d.once(&seen, 1) && d.object() {
				m.PreservedSegment = &struct {
					HeadUUID string `json:"headUuid"`
				}{}
				var seen uint64
				for d.more() {
					if string(d.key) == "headUuid" {
						if d.once(&seen, 0) {
							m.PreservedSegment.HeadUUID = d.str()
						}
					} else {
						d.unknown(ccSegmentKeys)
					}
				}
			}
		default:
			d.unknown(ccCompactKeys)
		}
	}
}

// decodeFast reads the members of a message, whose object has been
// entered.
func (m *ccMessage) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "id":
			if d.once(&seen, 0) {
				m.ID = d.strRecent()
			}
		case "role":
			if d.once(&seen, 1) {
				m.Role = d.strOf("assistant", "user")
			}
		case "model":
			if d.once(&seen, 2) {
				m.Model = d.strRecent()
			}
		case "content":
			if d.once(&seen, 3) {
				m.Content = d.raw()
			}
		case "stop_reason":
			if d.once(&seen, 4) {
				m.StopReason = d.strOf("tool_use", "end_turn")
			}
		case "usage":
			if d.once(&seen, 5) && d.object() {
				m.Usage = &ccUsage{}
				var seen uint64
				for d.more() {
					switch string(d.key) {
					case "input_tokens":
						if d.once(&seen, 0) {
							m.Usage.InputTokens = d.int64v()
						}
					case "output_tokens":
						if d.once(&seen, 1) {
							m.Usage.OutputTokens = d.int64v()
						}
					case "cache_creation_input_tokens":
						if d.once(&seen, 2) {
							m.Usage.CacheCreationInputTokens = d.int64v()
						}
					case "cache_read_input_tokens":
						if d.once(&seen, 3) {
							m.Usage.CacheReadInputTokens = d.int64v()
						}
					default:
						d.unknown(ccUsageKeys)
					}
				}
			}
		default:
			d.unknown(ccMessageKeys)
		}
	}
}

// ccBlocks is a list of content blocks.
type ccBlocks []ccBlock

func (bs *ccBlocks) decodeFast(d *jdec) {
	if !d.array() {
		if !d.fail {
			*bs = nil
		}
		return
	}
	if *bs == nil {
		*bs = ccBlocks{}
	} else {
		*bs = (*bs)[:0]
	}
	for d.next() {
		if !d.object() {
			d.giveUp()
			return
		}
		var b ccBlock
		b.decodeFast(d)
		*bs = append(*bs, b)
	}
}

// decodeFast reads the members of a block, whose object has been entered.
func (b *ccBlock) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				b.Type = d.strOf("text", "tool_use", "tool_result", "thinking")
			}
		case "text":
			if d.once(&seen, 1) {
				b.Text = d.str()
			}
		case "thinking":
			if d.once(&seen, 2) {
				b.Thinking = d.str()
			}
		case "signature":
			if d.once(&seen, 3) {
				b.Signature = d.str()
			}
		case "data":
			if d.once(&seen, 4) {
				b.Data = d.str()
			}
		case "id":
			if d.once(&seen, 5) {
				b.ID = d.strRecent()
			}
		case "name":
			if d.once(&seen, 6) {
				b.Name = d.strRecent()
			}
		case "input":
			if d.once(&seen, 7) {
				b.Input = d.raw()
			}
		case "tool_use_id":
			if d.once(&seen, 8) {
				b.ToolUseID = d.strRecent()
			}
		case "content":
			if d.once(&seen, 9) {
				b.Content = d.raw()
			}
		case "is_error":
			if d.once(&seen, 10) {
				b.IsError = d.boolean()
			}
		case "source":
			if d.once(&seen, 11) && d.object() {
				b.Source = &ccSource{}
				var seen uint64
				for d.more() {
					switch string(d.key) {
					case "media_type":
						if d.once(&seen, 0) {
							b.Source.MediaType = d.str()
						}
					case "data":
						if d.once(&seen, 1) {
							b.Source.Data = d.str()
						}
					default:
						d.unknown(ccSourceKeys)
					}
				}
			}
		default:
			d.unknown(ccBlockKeys)
		}
	}
}

var (
	ccProbeKeys        = fieldNames("type", "sessionId", "uuid", "parentUuid", "leafUuid", "messageId", "payload", "cwd", "timestamp", "message")
	ccProbeMessageKeys = fieldNames("model")
)

func (p *ccProbe) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				p.Type = d.strOf("assistant", "user", "attachment", "system", "progress")
			}
		case "sessionId":
			if d.once(&seen, 1) {
				p.SessionID = d.strRecent()
			}
		case "uuid":
			if d.once(&seen, 2) {
				p.UUID = d.str()
			}
		case "parentUuid":
			if d.once(&seen, 3) {
				p.ParentUUID = d.raw()
			}
		case "leafUuid":
			if d.once(&seen, 4) {
				p.LeafUUID = d.str()
			}
		case "messageId":
			if d.once(&seen, 5) {
				p.MessageID = d.str()
			}
		case "payload":
			if d.once(&seen, 6) {
				p.Payload = d.raw()
			}
		case "cwd":
			if d.once(&seen, 7) {
				p.CWD = d.strRecent()
			}
		case "timestamp":
			if d.once(&seen, 8) {
				p.Timestamp = d.str()
			}
		case "message":
			if d.once(&seen, 9) && d.object() {
				p.Message = &ccProbeMessage{}
				var seen uint64
				for d.more() {
					if string(d.key) != "model" {
						d.unknown(ccProbeMessageKeys)
					} else if d.once(&seen, 0) {
						p.Message.Model = d.strRecent()
					}
				}
			}
		default:
			d.unknown(ccProbeKeys)
		}
	}
}
