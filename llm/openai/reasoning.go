package openai

import (
	"encoding/json"

	"github.com/openai/openai-go/v3/shared"

	"github.com/vigil-dev/vigil/llm"
)

// effort is the reasoning effort to send for level, or "" to send none: for
// a model that does not reason (Config.Reasoning false), and for a level
// the thinking map sends nothing for (by default off, which leaves the
// model its own default rather than guessing what "none" means to each
// server). Anything else is the map's effort for the level.
func (m *Model) effort(level llm.ThinkingLevel) shared.ReasoningEffort {
	if !m.cfg.Reasoning {
		return ""
	}
	if v := m.cfg.ThinkingMap.Value(level); v != llm.ThinkingSendNothing {
		return shared.ReasoningEffort(v)
	}
	return ""
}

// reasoningItem is what a thinking block's Signature holds for the
// Responses API: the reasoning item as the server sent it, so the next
// request can send it back unchanged. Chat Completions has no such field,
// so its thinking blocks carry no signature.
type reasoningItem struct {
	ID               string   `json:"id"`
	EncryptedContent string   `json:"encrypted_content,omitempty"`
	Summary          []string `json:"summary,omitempty"`
}

// encode returns the signature for the item.
func (r reasoningItem) encode() string {
	b, err := json.Marshal(r)
	if err != nil {
		// A struct of strings always marshals.
		panic("openai: encode reasoning item: " + err.Error())
	}
	return string(b)
}

// decodeReasoning reads a signature written by encode. It reports false for
// anything else, such as an Anthropic signature in a conversation that
// changed provider, or an item without encrypted content, which a stateless
// (store: false) request cannot refer to.
func decodeReasoning(sig string) (reasoningItem, bool) {
	var r reasoningItem
	if len(sig) == 0 || sig[0] != '{' {
		return r, false
	}
	if err := json.Unmarshal([]byte(sig), &r); err != nil || r.ID == "" || r.EncryptedContent == "" {
		return r, false
	}
	return r, true
}
