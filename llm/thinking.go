package llm

import (
	"errors"
	"fmt"
	"strconv"
)

// ThinkingStyle is how a model's API takes a thinking level.
type ThinkingStyle string

// The thinking styles adapters know.
const (
	// ThinkingBudget is Anthropic's extended thinking: a level becomes
	// thinking {type: enabled, budget_tokens: N}.
	ThinkingBudget ThinkingStyle = "budget"
	// ThinkingAdaptive is Anthropic's adaptive thinking: a level becomes
	// thinking {type: adaptive} with output_config.effort, or another
	// thinking type (disabled, between_tools).
	ThinkingAdaptive ThinkingStyle = "adaptive"
	// ThinkingEffort is OpenAI's reasoning effort: a level becomes
	// reasoning.effort (Responses) or reasoning_effort (Chat Completions).
	ThinkingEffort ThinkingStyle = "effort"
)

// Wire values with a meaning of their own in [ThinkingValues].
const (
	// ThinkingSendNothing, in any style, sends no thinking setting at all:
	// the model's own default applies.
	ThinkingSendNothing = "default"
	// In the adaptive style, ThinkingAdaptiveOnly sends thinking {type:
	// adaptive} with no effort (the model's default effort), and
	// ThinkingDisabled and ThinkingBetweenTools send that thinking type
	// with no effort. Any other value is an effort.
	ThinkingAdaptiveOnly = "adaptive"
	ThinkingDisabled     = "disabled"
	ThinkingBetweenTools = "between_tools"
)

// Values of [ThinkingMap.Display]: how the thinking an Anthropic model
// does comes back. Summarized returns the reasoning's text (a summary of
// it on the newer models); omitted returns thinking blocks with no text,
// only the signature the next turn sends back. The newer Claude models
// omit it unless asked, and vigil's advisor and detectors read it, so
// summarized is the default wherever thinking is on.
const (
	ThinkingDisplaySummarized = "summarized"
	ThinkingDisplayOmitted    = "omitted"
)

// ThinkingMap says what each thinking level becomes in one model's
// requests. The catalog gives one per model, and models.yml may, under the
// model's thinking key; the zero value leaves it to the adapter (budgets
// for Anthropic, efforts of the level's name for OpenAI).
type ThinkingMap struct {
	// Style is how the model takes a level; "" is the adapter's default.
	Style ThinkingStyle `yaml:"style" json:"style,omitempty"`
	// Levels holds each level's wire value; a level left empty takes the
	// style's default (see [ThinkingMap.Value]).
	Levels ThinkingValues `yaml:"levels" json:"levels,omitzero"`
	// Display is thinking.display in the budget and adaptive styles, sent
	// with every level that turns thinking on (not with between_tools,
	// which takes none): [ThinkingDisplaySummarized], the default;
	// [ThinkingDisplayOmitted]; or "default", which sends no display and
	// leaves it to the model. See [ThinkingMap.DisplayValue].
	Display string `yaml:"display" json:"display,omitempty"`
}

// ThinkingValues holds one wire value per thinking level. What a value
// means depends on the style:
//
//   - budget: budget_tokens, a whole number of at least 1024; or
//     "disabled" (thinking {type: disabled}); or "default".
//   - adaptive: an output_config.effort (low, medium, high, xhigh, max,
//     or whatever the model takes), sent with thinking {type: adaptive};
//     or "adaptive", "disabled", "between_tools": that thinking type and
//     no effort; or "default".
//   - effort: the reasoning effort sent (none, minimal, low, medium,
//     high, xhigh, max, ...); or "default", which sends none.
type ThinkingValues struct {
	Off     string `yaml:"off" json:"off,omitempty"`
	Minimal string `yaml:"minimal" json:"minimal,omitempty"`
	Low     string `yaml:"low" json:"low,omitempty"`
	Medium  string `yaml:"medium" json:"medium,omitempty"`
	High    string `yaml:"high" json:"high,omitempty"`
	XHigh   string `yaml:"xhigh" json:"xhigh,omitempty"`
}

// get returns the value for level, "" for an unknown level.
func (ls ThinkingValues) get(level ThinkingLevel) string {
	switch level {
	case ThinkingOff:
		return ls.Off
	case ThinkingMinimal:
		return ls.Minimal
	case ThinkingLow:
		return ls.Low
	case ThinkingMedium:
		return ls.Medium
	case ThinkingHigh:
		return ls.High
	case ThinkingXHigh:
		return ls.XHigh
	}
	return ""
}

// defaultThinkingLevels are each style's values for the levels a map
// leaves empty: the budgets vigil always sent, the effort named like the
// level, and for the adaptive style the efforts Anthropic documents (it
// has no minimal, so minimal is low).
var defaultThinkingLevels = map[ThinkingStyle]ThinkingValues{
	ThinkingBudget:   {Off: ThinkingSendNothing, Minimal: "1024", Low: "4096", Medium: "10000", High: "20000", XHigh: "32000"},
	ThinkingAdaptive: {Off: ThinkingDisabled, Minimal: "low", Low: "low", Medium: "medium", High: "high", XHigh: "xhigh"},
	ThinkingEffort:   {Off: ThinkingSendNothing, Minimal: "minimal", Low: "low", Medium: "medium", High: "high", XHigh: "xhigh"},
}

// WithDefaultStyle returns m with style s when m names none.
func (m ThinkingMap) WithDefaultStyle(s ThinkingStyle) ThinkingMap {
	if m.Style == "" {
		m.Style = s
	}
	return m
}

// Value returns what level becomes on the wire: the map's own value, else
// the style's default. The empty level, which asks for nothing in
// particular, is always [ThinkingSendNothing]; so is a map without a style.
func (m ThinkingMap) Value(level ThinkingLevel) string {
	if level == "" || m.Style == "" {
		return ThinkingSendNothing
	}
	if v := m.Levels.get(level); v != "" {
		return v
	}
	if v := defaultThinkingLevels[m.Style].get(level); v != "" {
		return v
	}
	return ThinkingSendNothing
}

// DisplayValue returns the thinking.display to send when thinking is on:
// the map's own, else summarized in the budget and adaptive styles, else
// [ThinkingSendNothing] (which sends none).
func (m ThinkingMap) DisplayValue() string {
	switch {
	case m.Display != "":
		return m.Display
	case m.Style == ThinkingBudget || m.Style == ThinkingAdaptive:
		return ThinkingDisplaySummarized
	}
	return ThinkingSendNothing
}

// minThinkingBudget is the smallest budget_tokens Anthropic accepts.
const minThinkingBudget = 1024

// ThinkingBudgetOf reads a budget-style value as budget_tokens; ok is false
// for a value that is not a whole number of at least 1024.
func ThinkingBudgetOf(v string) (n int64, ok bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= minThinkingBudget
}

// Validate reports a map whose style is unknown, whose values do not fit
// its style or whose display is not one Anthropic takes; errors name the
// level or the display.
func (m ThinkingMap) Validate() error {
	var errs []error
	switch m.Display {
	case "", ThinkingDisplaySummarized, ThinkingDisplayOmitted, ThinkingSendNothing:
	default:
		errs = append(errs, fmt.Errorf("display: %q is not summarized, omitted or default", m.Display))
	}
	switch m.Style {
	case "":
		if m.Levels != (ThinkingValues{}) {
			errs = append(errs, errors.New("thinking levels need a style (budget, adaptive or effort)"))
		}
		return errors.Join(errs...)
	case ThinkingBudget, ThinkingAdaptive:
	case ThinkingEffort:
		if m.Display != "" {
			errs = append(errs, errors.New("display: the effort style takes none (it is Anthropic's, for the budget and adaptive styles)"))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown thinking style %q (want budget, adaptive or effort)", m.Style))
		return errors.Join(errs...)
	}
	for _, l := range ThinkingLevels {
		v := m.Levels.get(l)
		if v == "" || v == ThinkingSendNothing {
			continue
		}
		if err := checkThinkingValue(m.Style, v); err != nil {
			errs = append(errs, fmt.Errorf("level %s: %w", l, err))
		}
	}
	return errors.Join(errs...)
}

// checkThinkingValue checks one value of a map of style s.
func checkThinkingValue(s ThinkingStyle, v string) error {
	switch s {
	case ThinkingBudget:
		if v == ThinkingDisabled {
			return nil
		}
		if _, ok := ThinkingBudgetOf(v); !ok {
			return fmt.Errorf("%q is not a budget: want a whole number of at least %d tokens, disabled or default", v, minThinkingBudget)
		}
		return nil
	case ThinkingAdaptive, ThinkingEffort:
		if !isWord(v) {
			return fmt.Errorf("%q is not an effort: want a lower-case word such as low or high, or default", v)
		}
	}
	return nil
}

// isWord reports whether s is a non-empty run of lower-case letters and
// underscores, the shape of every effort and thinking type.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}
