package fakellm

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
)

// stopKind is why a turn ended, independent of any API's word for it.
type stopKind int

const (
	stopEnd stopKind = iota
	stopMaxTokens
	stopToolUse
	stopSequence
	stopRefusal
	stopPause
	stopContentFilter
	stopContextWindow
)

// stopReasons maps every stop reason a script may name to its kind; "" is
// the default, resolved by [newReply].
var stopReasons = map[string]stopKind{
	"":                              stopEnd,
	"end_turn":                      stopEnd,
	"stop":                          stopEnd,
	"max_tokens":                    stopMaxTokens,
	"length":                        stopMaxTokens,
	"tool_use":                      stopToolUse,
	"tool_calls":                    stopToolUse,
	"stop_sequence":                 stopSequence,
	"refusal":                       stopRefusal,
	"pause_turn":                    stopPause,
	"content_filter":                stopContentFilter,
	"model_context_window_exceeded": stopContextWindow,
}

func stopReasonNames() []string {
	var names []string
	for name := range stopReasons {
		if name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// reply is a Step made ready to render in any API: defaults resolved, ids
// assigned and usage counted.
type reply struct {
	seq      int64  // the request's number on this server, for ids
	model    string // echoed from the request
	created  time.Time
	thinking string
	// signature is the Anthropic signature and the Responses encrypted_content.
	signature string
	redacted  string
	text      string
	calls     []call
	stop      stopKind
	usage     Usage
	chunk     int
	// Options read from the request.
	includeUsage       bool // Chat: stream_options.include_usage
	encryptedReasoning bool // Responses: include has reasoning.encrypted_content
}

// call is a ToolCall with its id and JSON arguments settled.
type call struct {
	id, name, args string
	namespace      string // Responses only
}

// defaultChunk is the text delta size in bytes when a step sets none.
const defaultChunk = 8

// newReply resolves st for one request. It assumes st was validated.
func newReply(st *Step, seq int64, wr *wireRequest, now time.Time) *reply {
	rp := &reply{
		seq:                seq,
		model:              wr.model,
		created:            now,
		thinking:           st.Thinking,
		signature:          st.Signature,
		redacted:           st.RedactedThinking,
		text:               st.Text,
		stop:               stopReasons[st.StopReason],
		chunk:              st.Chunk,
		includeUsage:       wr.includeUsage,
		encryptedReasoning: wr.encryptedReasoning,
	}
	if rp.signature == "" && rp.thinking != "" {
		sum := sha256.Sum256([]byte(rp.thinking))
		rp.signature = base64.StdEncoding.EncodeToString(append([]byte("fakellm:"), sum[:]...))
	}
	for _, tc := range st.ToolCalls {
		args, _ := argumentsJSON(tc.Arguments)
		rp.calls = append(rp.calls, call{id: tc.ID, name: tc.Name, args: args, namespace: tc.Namespace})
	}
	if st.StopReason == "" && len(rp.calls) > 0 {
		rp.stop = stopToolUse
	}
	return rp
}

// id makes an id unique on this server: PREFIX_fakellm_SEQ.
func (rp *reply) id(prefix string) string {
	return fmt.Sprintf("%s_fakellm_%d", prefix, rp.seq)
}

// itemID makes the id of the k-th of several items: PREFIX_fakellm_SEQ_K.
func (rp *reply) itemID(prefix string, k int) string {
	return fmt.Sprintf("%s_fakellm_%d_%d", prefix, rp.seq, k)
}

// callID is the id of call k, generated with prefix when the script set none.
func (rp *reply) callID(prefix string, k int) string {
	if rp.calls[k].id != "" {
		return rp.calls[k].id
	}
	return rp.itemID(prefix, k)
}

// outputBytes is the size of what the model generated.
func (rp *reply) outputBytes() int {
	n := len(rp.thinking) + len(rp.redacted) + len(rp.text)
	for _, c := range rp.calls {
		n += len(c.name) + len(c.args)
	}
	return n
}

// textChunks splits s into stream deltas of at most rp.chunk bytes (at least
// one rune each), never splitting a UTF-8 sequence.
func (rp *reply) textChunks(s string) []string {
	size := rp.chunk
	if size <= 0 {
		size = defaultChunk
	}
	return splitUTF8(s, size)
}

// argChunks splits tool arguments into stream fragments: rp.chunk bytes
// each when set, else three fragments.
func (rp *reply) argChunks(s string) []string {
	size := rp.chunk
	if size <= 0 {
		size = max(1, (len(s)+2)/3)
	}
	return splitUTF8(s, size)
}

// splitUTF8 cuts s into pieces of at most size bytes, except that a piece
// holds at least one whole rune.
func splitUTF8(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// tokens estimates the tokens in n bytes: one per four, rounded up.
func tokens(n int) int { return (n + 3) / 4 }
