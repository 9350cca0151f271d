package llm_test

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

func TestThinkingMapValue(t *testing.T) {
	adaptive := llm.ThinkingMap{Style: llm.ThinkingAdaptive, Levels: llm.ThinkingValues{Off: "low", XHigh: "max"}}
	tests := []struct {
		name  string
		m     llm.ThinkingMap
		level llm.ThinkingLevel
		want  string
	}{
		{"NoStyle", llm.ThinkingMap{}, llm.ThinkingHigh, "default"},
		{"NoLevel", adaptive, "", "default"},
		{"Given", adaptive, llm.ThinkingOff, "low"},
		{"GivenTop", adaptive, llm.ThinkingXHigh, "max"},
		{"AdaptiveDefaultMinimal", adaptive, llm.ThinkingMinimal, "low"},
		{"AdaptiveDefaultHigh", adaptive, llm.ThinkingHigh, "high"},
		{"AdaptiveDefaultOff", llm.ThinkingMap{Style: llm.ThinkingAdaptive}, llm.ThinkingOff, "disabled"},
		{"BudgetDefaultOff", llm.ThinkingMap{Style: llm.ThinkingBudget}, llm.ThinkingOff, "default"},
		{"BudgetDefaultMedium", llm.ThinkingMap{Style: llm.ThinkingBudget}, llm.ThinkingMedium, "10000"},
		{"EffortDefaultMinimal", llm.ThinkingMap{Style: llm.ThinkingEffort}, llm.ThinkingMinimal, "minimal"},
		{"EffortDefaultOff", llm.ThinkingMap{Style: llm.ThinkingEffort}, llm.ThinkingOff, "default"},
		{"UnknownLevel", adaptive, "extreme", "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.Value(tt.level); got != tt.want {
				t.Errorf("Value(%q) = %q, want %q", tt.level, got, tt.want)
			}
		})
	}
}

func TestThinkingMapWithDefaultStyle(t *testing.T) {
	if got := (llm.ThinkingMap{}).WithDefaultStyle(llm.ThinkingBudget).Style; got != llm.ThinkingBudget {
		t.Errorf("empty map takes style %q, want budget", got)
	}
	m := llm.ThinkingMap{Style: llm.ThinkingAdaptive}
	if got := m.WithDefaultStyle(llm.ThinkingBudget).Style; got != llm.ThinkingAdaptive {
		t.Errorf("adaptive map became %q", got)
	}
}

func TestThinkingMapValidate(t *testing.T) {
	tests := []struct {
		name string
		m    llm.ThinkingMap
		want string // "" for valid
	}{
		{"Zero", llm.ThinkingMap{}, ""},
		{"LevelsWithoutStyle", llm.ThinkingMap{Levels: llm.ThinkingValues{Low: "low"}}, "need a style"},
		{"UnknownStyle", llm.ThinkingMap{Style: "tokens"}, `unknown thinking style "tokens"`},
		{"Budget", llm.ThinkingMap{Style: llm.ThinkingBudget, Levels: llm.ThinkingValues{Off: "disabled", Low: "2048", High: "default"}}, ""},
		{"BudgetTooSmall", llm.ThinkingMap{Style: llm.ThinkingBudget, Levels: llm.ThinkingValues{Minimal: "512"}}, `level minimal: "512" is not a budget`},
		{"BudgetWord", llm.ThinkingMap{Style: llm.ThinkingBudget, Levels: llm.ThinkingValues{High: "high"}}, `level high: "high" is not a budget`},
		{"Adaptive", llm.ThinkingMap{Style: llm.ThinkingAdaptive, Levels: llm.ThinkingValues{Off: "between_tools", Minimal: "adaptive", XHigh: "max"}}, ""},
		{"AdaptiveNumber", llm.ThinkingMap{Style: llm.ThinkingAdaptive, Levels: llm.ThinkingValues{Low: "4096"}}, `level low: "4096" is not an effort`},
		{"EffortUpper", llm.ThinkingMap{Style: llm.ThinkingEffort, Levels: llm.ThinkingValues{Off: "None"}}, `level off: "None" is not an effort`},
		{"DisplayOmitted", llm.ThinkingMap{Style: llm.ThinkingAdaptive, Display: "omitted"}, ""},
		{"DisplayDefault", llm.ThinkingMap{Style: llm.ThinkingBudget, Display: "default"}, ""},
		{"DisplayWithoutStyle", llm.ThinkingMap{Display: "summarized"}, ""},
		{"DisplayUnknown", llm.ThinkingMap{Style: llm.ThinkingAdaptive, Display: "full"}, `display: "full" is not summarized, omitted or default`},
		{"DisplayUnknownWithoutStyle", llm.ThinkingMap{Display: "Omitted"}, `display: "Omitted"`},
		{"DisplayWithEffort", llm.ThinkingMap{Style: llm.ThinkingEffort, Display: "summarized"}, "the effort style takes none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.m.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestThinkingMapDisplayValue(t *testing.T) {
	tests := []struct {
		name string
		m    llm.ThinkingMap
		want string
	}{
		{"AdaptiveDefault", llm.ThinkingMap{Style: llm.ThinkingAdaptive}, "summarized"},
		{"BudgetDefault", llm.ThinkingMap{Style: llm.ThinkingBudget}, "summarized"},
		{"Omitted", llm.ThinkingMap{Style: llm.ThinkingAdaptive, Display: "omitted"}, "omitted"},
		{"SendNothing", llm.ThinkingMap{Style: llm.ThinkingBudget, Display: "default"}, "default"},
		{"Effort", llm.ThinkingMap{Style: llm.ThinkingEffort}, "default"},
		{"NoStyle", llm.ThinkingMap{}, "default"},
		{"NoStyleAdapterDefault", llm.ThinkingMap{Display: "omitted"}.WithDefaultStyle(llm.ThinkingBudget), "omitted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.DisplayValue(); got != tt.want {
				t.Errorf("DisplayValue() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestThinkingBudgetOf(t *testing.T) {
	for v, want := range map[string]int64{"1024": 1024, "32000": 32000, "1023": -1, "x": -1, "": -1, "-2048": -1} {
		n, ok := llm.ThinkingBudgetOf(v)
		if (want < 0) == ok || (ok && n != want) {
			t.Errorf("ThinkingBudgetOf(%q) = %d, %t; want %d", v, n, ok, want)
		}
	}
}
