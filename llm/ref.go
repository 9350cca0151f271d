package llm

import (
	"fmt"
	"strings"
)

// ThinkingLevel is how hard a reasoning model is asked to think.
type ThinkingLevel string

// The thinking levels, from none to the most.
const (
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
	ThinkingXHigh   ThinkingLevel = "xhigh"
)

// ThinkingLevels lists every level in increasing order.
var ThinkingLevels = []ThinkingLevel{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh}

// ParseThinkingLevel returns the level named s.
func ParseThinkingLevel(s string) (ThinkingLevel, error) {
	for _, l := range ThinkingLevels {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown thinking level %q (want one of off, minimal, low, medium, high, xhigh)", s)
}

// Enabled reports whether the level asks for any thinking.
func (l ThinkingLevel) Enabled() bool { return l != "" && l != ThinkingOff }

// Ref names a model: provider/model[:thinking]. Provider may be empty for a
// bare model id, which the resolver then looks up in every provider.
type Ref struct {
	Provider string
	Model    string
	Thinking ThinkingLevel
}

// ParseRef parses provider/model[:thinking] or a bare model[:thinking].
// The model part may itself contain slashes (openrouter/anthropic/claude-x):
// only the first slash separates the provider. A colon suffix is read as a
// thinking level only when it names one, so ids like llama3:8b survive.
func ParseRef(s string) (Ref, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Ref{}, fmt.Errorf("parse model reference: empty")
	}
	var r Ref
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		if l, err := ParseThinkingLevel(s[i+1:]); err == nil {
			r.Thinking = l
			s = s[:i]
		}
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		r.Provider, r.Model = s[:i], s[i+1:]
		if r.Provider == "" {
			return Ref{}, fmt.Errorf("parse model reference %q: empty provider before /", s)
		}
	} else {
		r.Model = s
	}
	if r.Model == "" {
		return Ref{}, fmt.Errorf("parse model reference %q: empty model id", s)
	}
	return r, nil
}

// String formats the reference as ParseRef reads it.
func (r Ref) String() string {
	s := r.Model
	if r.Provider != "" {
		s = r.Provider + "/" + s
	}
	if r.Thinking != "" {
		s += ":" + string(r.Thinking)
	}
	return s
}

// API names a wire protocol, in the words omp's models.yml uses.
type API string

// The wire APIs vigil speaks.
const (
	APIAnthropicMessages API = "anthropic-messages"
	APIOpenAICompletions API = "openai-completions"
	APIOpenAIResponses   API = "openai-responses"
)

// ModelInfo is what the catalog knows of a model.
type ModelInfo struct {
	// Provider and ID together name the model: the ID is what the provider's
	// API calls it.
	Provider string
	ID       string
	// Name is for people.
	Name string
	// API is the wire protocol the provider speaks for this model.
	API API
	// Reasoning reports whether the model accepts a thinking level.
	Reasoning bool
	// ThinkingMap says what each thinking level becomes in the model's
	// requests; the zero value leaves it to the adapter.
	ThinkingMap ThinkingMap
	// ContextWindow and MaxOutput are in tokens.
	ContextWindow int
	MaxOutput     int
	Price         Price
}

// Ref returns the model's canonical reference.
func (m ModelInfo) Ref() Ref { return Ref{Provider: m.Provider, Model: m.ID} }
