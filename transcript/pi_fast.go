package transcript

// The fast path's decoders (jsonfast.go) of the structs in pi.go.

var (
	piLineKeys = fieldNames("type", "id", "parentId", "timestamp", "message", "version", "cwd", "title", "name",
		"provider", "modelId", "model", "summary", "firstKeptEntryId", "tokensBefore", "fromId", "details",
		"customType", "content", "display", "titleSource", "providerPromptCacheKey")
	piMessageKeys = fieldNames("role", "content", "provider", "model", "stopReason", "usage", "toolCallId",
		"isError", "customType", "display", "details", "command", "code", "output", "exitCode",
		"excludeFromContext", "summary", "fromId", "tokensBefore")
	piUsageKeys = fieldNames("input", "output", "cacheRead", "cacheWrite")
	piBlockKeys = fieldNames("type", "text", "thinking", "thinkingSignature", "data", "mimeType", "id", "name", "arguments")
)

func (l *piLine) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				l.Type = d.strOf("message", "model_change", "thinking_level_change", "custom", "compaction")
			}
		case "id":
			if d.once(&seen, 1) {
				l.ID = d.strRecent()
			}
		case "parentId":
			if d.once(&seen, 2) {
				l.ParentID = d.strRecent()
			}
		case "timestamp":
			if d.once(&seen, 3) {
				l.t, l.stamped = d.stamp(), true
			}
		case "message":
			if d.once(&seen, 4) && d.object() {
				l.Message = &l.msg
				l.Message.decodeFast(d)
			}
		case "version":
			if d.once(&seen, 5) {
				l.Version = d.intp()
			}
		case "cwd":
			if d.once(&seen, 6) {
				l.CWD = d.str()
			}
		case "title":
			if d.once(&seen, 7) {
				l.Title = d.str()
			}
		case "name":
			if d.once(&seen, 8) {
				l.Name = d.str()
			}
		case "provider":
			if d.once(&seen, 9) {
				l.Provider = d.str()
			}
		case "modelId":
			if d.once(&seen, 10) {
				l.ModelID = d.str()
			}
		case "model":
			if d.once(&seen, 11) {
				l.Model = d.str()
			}
		case "summary":
			if d.once(&seen, 12) {
				l.Summary = d.str()
			}
		case "firstKeptEntryId":
			if d.once(&seen, 13) {
				l.FirstKept = d.str()
			}
		case "tokensBefore":
			if d.once(&seen, 14) {
				l.Tokens = d.int64v()
			}
		case "fromId":
			if d.once(&seen, 15) {
				l.FromID = d.str()
			}
		case "details":
			if d.once(&seen, 16) {
				l.Details = d.raw()
			}
		case "customType":
			if d.once(&seen, 17) {
				l.Custom = d.str()
			}
		case "content":
			if d.once(&seen, 18) {
				l.Content = d.raw()
			}
		case "display":
			if d.once(&seen, 19) {
				l.Display = d.boolean()
			}
		case "titleSource":
			if d.once(&seen, 20) {
				l.TitleSource = d.str()
			}
		case "providerPromptCacheKey":
			if d.once(&seen, 21) {
				l.PromptKey = d.str()
			}
		default:
			d.unknown(piLineKeys)
		}
	}
}

// decodeFast reads the members of the object just entered.
func (m *piMessage) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "role":
			if d.once(&seen, 0) {
				m.Role = d.strOf("assistant", "user", "toolResult")
			}
		case "content":
			if d.once(&seen, 1) {
				m.Content = d.raw()
			}
		case "provider":
			if d.once(&seen, 2) {
				m.Provider = d.strRecent()
			}
		case "model":
			if d.once(&seen, 3) {
				m.Model = d.strRecent()
			}
		case "stopReason":
			if d.once(&seen, 4) {
				m.StopReason = d.strOf("stop", "toolUse")
			}
		case "usage":
			if d.once(&seen, 5) && d.object() {
				m.Usage = &piUsage{}
				var seen uint64
				for d.more() {
					switch string(d.key) {
					case "input":
						if d.once(&seen, 0) {
							m.Usage.Input = d.int64v()
						}
					case "output":
						if d.once(&seen, 1) {
							m.Usage.Output = d.int64v()
						}
					case "cacheRead":
						if d.once(&seen, 2) {
							m.Usage.CacheRead = d.int64v()
						}
					case "cacheWrite":
						if d.once(&seen, 3) {
							m.Usage.CacheWrite = d.int64v()
						}
					default:
						d.unknown(piUsageKeys)
					}
				}
			}
		case "toolCallId":
			if d.once(&seen, 6) {
				m.ToolCallID = d.strRecent()
			}
		case "isError":
			if d.once(&seen, 7) {
				m.IsError = d.boolean()
			}
		case "customType":
			if d.once(&seen, 8) {
				m.CustomType = d.str()
			}
		case "display":
			if d.once(&seen, 9) {
				m.Display = d.boolean()
			}
		case "details":
			if d.once(&seen, 10) {
				m.Details = d.raw()
			}
		case "command":
			if d.once(&seen, 11) {
				m.Command = d.str()
			}
		case "code":
			if d.once(&seen, 12) {
				m.Code = d.str()
			}
		case "output":
			if d.once(&seen, 13) {
				m.Output = d.str()
			}
		case "exitCode":
			if d.once(&seen, 14) {
				m.ExitCode = d.intp()
			}
		case "excludeFromContext":
			if d.once(&seen, 15) {
				m.ExcludeFromContext = d.boolean()
			}
		case "summary":
			if d.once(&seen, 16) {
				m.Summary = d.str()
			}
		case "fromId":
			if d.once(&seen, 17) {
				m.FromID = d.str()
			}
		case "tokensBefore":
			if d.once(&seen, 18) {
				m.TokensBefore = d.int64v()
			}
		default:
			d.unknown(piMessageKeys)
		}
	}
}

// piBlocks is a list of content blocks.
type piBlocks []piBlock

func (bs *piBlocks) decodeFast(d *jdec) {
	if !d.array() {
		if !d.fail {
			*bs = nil
		}
		return
	}
	if *bs == nil {
		*bs = piBlocks{}
	} else {
		*bs = (*bs)[:0]
	}
	for d.next() {
		if !d.object() {
			d.giveUp()
			return
		}
		var b piBlock
		var seen uint64
		for d.more() {
			switch string(d.key) {
			case "type":
				if d.once(&seen, 0) {
					b.Type = d.strOf("text", "toolCall", "thinking")
				}
			case "text":
				if d.once(&seen, 1) {
					b.Text = d.str()
				}
			case "thinking":
				if d.once(&seen, 2) {
					b.Thinking = d.str()
				}
			case "thinkingSignature":
				if d.once(&seen, 3) {
					b.Signature = d.str()
				}
			case "data":
				if d.once(&seen, 4) {
					b.Data = d.str()
				}
			case "mimeType":
				if d.once(&seen, 5) {
					b.MimeType = d.str()
				}
			case "id":
				if d.once(&seen, 6) {
					b.ID = d.strRecent()
				}
			case "name":
				if d.once(&seen, 7) {
					b.Name = d.strRecent()
				}
			case "arguments":
				if d.once(&seen, 8) {
					b.Arguments = d.raw()
				}
			default:
				d.unknown(piBlockKeys)
			}
		}
		*bs = append(*bs, b)
	}
}
